# CTest fixture server_oracle.setup: installs the pinned npm packages (npm ci
# from package-lock.json: openai) into WORK_DIR with load_test.js beside
# them. Fails, never skips, when node or npm is missing or the registry
# cannot be reached.
include(${CMAKE_CURRENT_LIST_DIR}/../npm_oracle.cmake)
llm_npm_oracle_install("server oracle" FILES load_test.js)
