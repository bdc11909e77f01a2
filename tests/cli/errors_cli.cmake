# llm-run must fail with a non-zero exit and a one-line error, never crash.
#   cmake -DLLM_RUN=... -DSHARED=... -P errors_cli.cmake
include(${CMAKE_CURRENT_LIST_DIR}/tools.cmake)

function(expect_failure what pattern)
  execute_process(
    COMMAND ${ARGN}
    OUTPUT_VARIABLE out
    ERROR_VARIABLE err
    RESULT_VARIABLE rc)
  if(rc EQUAL 0 OR NOT rc MATCHES "^[0-9]+$")
    message(FATAL_ERROR "${what}: expected exit 1, got '${rc}'")
  endif()
  string(STRIP "${err}" err)
  if(err MATCHES "\n")
    message(FATAL_ERROR "${what}: error is not one line:\n${err}")
  endif()
  if(NOT err MATCHES "${pattern}")
    message(FATAL_ERROR "${what}: error '${err}' does not match '${pattern}'")
  endif()
endfunction()

expect_failure("missing model" "file not found" ${LLM_RUN} /nonexistent/model.bin)
expect_failure("missing tokenizer" "file not found" ${LLM_RUN} ${SHARED}/models/stories260K.bin -z
               /nonexistent/tok.bin)
expect_failure("not a checkpoint" "bad model dimensions" ${LLM_RUN} ${SHARED}/models/tok512.bin -z
               ${SHARED}/models/tok512.bin)
expect_failure("a folder that is not a model" "no config.json.*file not found" ${LLM_RUN}
               ${SHARED}/golden)
