# Runs llm-run and llm-tokenize on a llama2.c golden and compares their output
# byte for byte. Invoked by CTest as:
#   cmake -DLLM_RUN=... -DLLM_TOKENIZE=... -DSHARED=... -DNAME=once_upon -P golden_cli.cmake
include(${CMAKE_CURRENT_LIST_DIR}/tools.cmake)

file(READ "${SHARED}/golden/llama2c/stories260K_${NAME}.json" golden)
string(JSON prompt GET "${golden}" prompt)
string(JSON text GET "${golden}" text)
string(JSON steps GET "${golden}" steps)

set(model "${SHARED}/models/stories260K.bin")
set(tok "${SHARED}/models/tok512.bin")

function(json_ids out key)
  string(JSON n LENGTH "${golden}" ${key})
  set(ids "")
  if(n GREATER 0)
    math(EXPR last "${n} - 1")
    foreach(i RANGE ${last})
      string(JSON id GET "${golden}" ${key} ${i})
      list(APPEND ids ${id})
    endforeach()
  endif()
  set(${out}
      "${ids}"
      PARENT_SCOPE)
endfunction()

function(expect what actual expected)
  if(NOT actual STREQUAL expected)
    message(
      FATAL_ERROR
        "${what} differs for '${NAME}':\n--- got ---\n${actual}\n--- expected ---\n${expected}")
  endif()
endfunction()

# The story, as llama2.c's run prints it.
execute_process(
  COMMAND ${LLM_RUN} ${model} -z ${tok} -t 0 -n ${steps} -i "${prompt}"
  OUTPUT_VARIABLE out
  RESULT_VARIABLE rc)
expect("llm-run exit code" "${rc}" "0")
expect("llm-run text" "${out}" "${text}")

# --ids: prompt ids, then generated ids.
json_ids(prompt_ids prompt_token_ids)
json_ids(gen_ids generated_token_ids)
set(all_ids ${prompt_ids} ${gen_ids})
string(REPLACE ";" " " expected_ids "${all_ids}")
execute_process(
  COMMAND ${LLM_RUN} ${model} -z ${tok} -t 0 -n ${steps} -i "${prompt}" --ids
  OUTPUT_VARIABLE out
  RESULT_VARIABLE rc)
expect("llm-run --ids exit code" "${rc}" "0")
expect("llm-run --ids" "${out}" "${expected_ids}\n")

# llm-tokenize with and without BOS.
string(REPLACE ";" " " expected_prompt "${prompt_ids}")
execute_process(COMMAND ${LLM_TOKENIZE} ${model} "${prompt}" -z ${tok} OUTPUT_VARIABLE out)
expect("llm-tokenize" "${out}" "${expected_prompt}\n")
list(REMOVE_AT prompt_ids 0)
string(REPLACE ";" " " expected_nobos "${prompt_ids}")
execute_process(COMMAND ${LLM_TOKENIZE} ${model} "${prompt}" -z ${tok} --no-bos OUTPUT_VARIABLE out)
expect("llm-tokenize --no-bos" "${out}" "${expected_nobos}\n")
