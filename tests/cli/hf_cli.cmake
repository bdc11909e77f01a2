# llm-run and llm-tokenize on the qwen2-tiny Hugging Face folder against its
# goldens (token ids: the model has random weights, its text is noise).
#   cmake -DLLM_RUN=... -DLLM_TOKENIZE=... -DSHARED=... -P hf_cli.cmake
include(${CMAKE_CURRENT_LIST_DIR}/tools.cmake)

set(model "${SHARED}/models/qwen2-tiny")

function(expect what actual expected)
  if(NOT actual STREQUAL expected)
    message(FATAL_ERROR "${what}:\n--- got ---\n${actual}\n--- expected ---\n${expected}")
  endif()
endfunction()

function(json_ids out golden key)
  string(JSON n LENGTH "${golden}" ${key})
  math(EXPR last "${n} - 1")
  set(ids "")
  foreach(i RANGE ${last})
    string(JSON id GET "${golden}" ${key} ${i})
    list(APPEND ids ${id})
  endforeach()
  set(${out}
      "${ids}"
      PARENT_SCOPE)
endfunction()

# The issue's acceptance command runs.
execute_process(
  COMMAND ${LLM_RUN} ${model} -t 0 -n 32 -i "Hello"
  OUTPUT_QUIET
  RESULT_VARIABLE rc)
expect("llm-run -i Hello exit code" "${rc}" "0")

# Prompt ids and 32 greedy ids; the chat prompt needs --special.
foreach(name p1_english p2_code p3_chat)
  file(READ "${SHARED}/golden/qwen2-tiny/${name}.json" golden)
  string(JSON prompt GET "${golden}" prompt)
  json_ids(prompt_ids "${golden}" prompt_token_ids)
  json_ids(gen_ids "${golden}" generated_token_ids)
  list(LENGTH prompt_ids n_prompt)
  math(EXPR steps "${n_prompt} + 31")
  set(special "")
  if(name STREQUAL "p3_chat")
    set(special --special)
  endif()
  set(all ${prompt_ids} ${gen_ids})
  string(REPLACE ";" " " expected "${all}")
  execute_process(
    COMMAND ${LLM_RUN} ${model} -t 0 -n ${steps} -i "${prompt}" ${special} --ids
    OUTPUT_VARIABLE out
    RESULT_VARIABLE rc)
  expect("${name}: llm-run exit code" "${rc}" "0")
  expect("${name}: llm-run --ids" "${out}" "${expected}\n")
  string(REPLACE ";" " " expected "${prompt_ids}")
  execute_process(COMMAND ${LLM_TOKENIZE} ${model} "${prompt}" ${special} OUTPUT_VARIABLE out)
  expect("${name}: llm-tokenize" "${out}" "${expected}\n")
endforeach()
