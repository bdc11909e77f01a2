# CTest fixture structured_oracle.setup: installs the pinned npm packages
# (npm ci from package-lock.json: ajv, ajv-formats) into WORK_DIR with
# check_structured.js beside them. Fails, never skips, when node or npm is
# missing or the registry cannot be reached.
foreach(var NODE NPM SRC_DIR WORK_DIR)
  if(NOT DEFINED ${var}
     OR "${${var}}" STREQUAL ""
     OR "${${var}}" MATCHES "NOTFOUND$")
    message(FATAL_ERROR "structured oracle: ${var} is not set (are node and npm installed?)")
  endif()
endforeach()

file(MAKE_DIRECTORY ${WORK_DIR})
foreach(f package.json package-lock.json check_structured.js)
  configure_file(${SRC_DIR}/${f} ${WORK_DIR}/${f} COPYONLY)
endforeach()

# Reinstall only when the lock file changed since the last install.
set(stamp ${WORK_DIR}/node_modules/.libllm-lock-copy)
set(need_install TRUE)
if(EXISTS ${stamp})
  file(SHA256 ${stamp} old)
  file(SHA256 ${WORK_DIR}/package-lock.json new)
  if(old STREQUAL new)
    set(need_install FALSE)
  endif()
endif()
if(need_install)
  execute_process(
    COMMAND ${NPM} ci --no-audit --no-fund
    WORKING_DIRECTORY ${WORK_DIR}
    RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "structured oracle: npm ci failed (${rc})")
  endif()
  configure_file(${WORK_DIR}/package-lock.json ${stamp} COPYONLY)
endif()
