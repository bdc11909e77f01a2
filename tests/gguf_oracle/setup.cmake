# CTest fixture gguf_oracle.setup: installs the pinned npm packages
# (node-llama-cpp 3.22.1 and its prebuilt llama.cpp, at package-lock.json's
# versions) into WORK_DIR and writes there gguf_oracle.json: llama.cpp's ids
# and top-2 predictions on every .gguf file in MODELS_DIR (made by the
# gguf_models fixture), and its top-1 along the reference outputs in GOLDEN_DIR.
# Fails, never skips, when node or npm is missing or the registry cannot be
# reached.
include(${CMAKE_CURRENT_LIST_DIR}/../npm_oracle.cmake)
llm_npm_oracle_install(
  "gguf oracle"
  VARS
  MODELS_DIR
  GOLDEN_DIR
  FILES
  gen_oracle.mjs
  NPM_INSTALL)

file(GLOB files ${MODELS_DIR}/*.gguf)
list(SORT files)
if(NOT files)
  message(FATAL_ERROR "gguf oracle: no .gguf files in ${MODELS_DIR}")
endif()
execute_process(
  COMMAND ${NODE} gen_oracle.mjs ${WORK_DIR}/gguf_oracle.json --golden ${GOLDEN_DIR} ${files}
  WORKING_DIRECTORY ${WORK_DIR}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gguf oracle: gen_oracle.mjs failed (${rc})")
endif()
