# CTest fixture structured_oracle.setup: installs the pinned npm packages
# (npm ci from package-lock.json: ajv, ajv-formats) into WORK_DIR with
# check_structured.js beside them. Fails, never skips, when node or npm is
# missing or the registry cannot be reached.
include(${CMAKE_CURRENT_LIST_DIR}/../npm_oracle.cmake)
llm_npm_oracle_install("structured oracle" FILES check_structured.js)
