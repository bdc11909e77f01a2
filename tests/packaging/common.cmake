# Helpers shared by the packaging test scripts (run with cmake -P).
cmake_minimum_required(VERSION 3.19) # string(JSON)

# llm_run(<command...> [WORKING_DIRECTORY dir] [OUTPUT var]): runs a command,
# fails the test with its output if it exits non-zero.
function(llm_run)
  cmake_parse_arguments(arg "" "WORKING_DIRECTORY;OUTPUT" "" ${ARGN})
  if(NOT arg_WORKING_DIRECTORY)
    set(arg_WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  endif()
  list(JOIN arg_UNPARSED_ARGUMENTS " " shown)
  message(STATUS "$ ${shown}")
  execute_process(
    COMMAND ${arg_UNPARSED_ARGUMENTS}
    WORKING_DIRECTORY ${arg_WORKING_DIRECTORY}
    RESULT_VARIABLE rc
    OUTPUT_VARIABLE out
    ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    set(hint "")
    if(rc EQUAL 53)
      set(hint "\n(exit code 53 under wine: a DLL the program needs was not found)")
    endif()
    message(FATAL_ERROR "command failed (${rc}): ${shown}\n${out}\n${err}${hint}")
  endif()
  if(arg_OUTPUT)
    set(${arg_OUTPUT}
        "${out}"
        PARENT_SCOPE)
  endif()
endfunction()

# llm_expect_story(<output> <golden.json> <min_generated_bytes>): `output`
# (a prompt and its greedy continuation, as llama2.c run.c prints it) must be
# a prefix of the golden text and add at least min_generated_bytes to the
# prompt. Windows line ends and one final newline are ignored.
function(llm_expect_story output golden_json min_generated_bytes)
  file(READ ${golden_json} json)
  string(JSON golden GET "${json}" text)
  string(JSON prompt GET "${json}" prompt)
  string(REPLACE "\r\n" "\n" output "${output}")
  string(REGEX REPLACE "\n$" "" output "${output}")
  string(LENGTH "${output}" n)
  string(LENGTH "${prompt}" n_prompt)
  string(SUBSTRING "${golden}" 0 ${n} golden_prefix)
  if(NOT output STREQUAL golden_prefix)
    message(FATAL_ERROR "the output differs from ${golden_json}:\n"
                        "got:      ${output}\nexpected: ${golden_prefix}")
  endif()
  math(EXPR generated "${n} - ${n_prompt}")
  if(generated LESS min_generated_bytes)
    message(FATAL_ERROR "only ${generated} bytes were generated after the prompt: ${output}")
  endif()
  message(STATUS "output matches the golden story (${generated} bytes generated)")
endfunction()

# llm_unicode_model_copy(<dir> <model> <tokenizer> <out_model> <out_tokenizer>):
# copies the model files into a folder whose name is not ASCII, so a run also
# proves that UTF-8 paths reach the file system intact.
function(llm_unicode_model_copy dir model tokenizer out_model out_tokenizer)
  set(folder "${dir}/modèle-模型")
  file(MAKE_DIRECTORY "${folder}")
  file(COPY ${model} ${tokenizer} DESTINATION "${folder}")
  get_filename_component(model_name ${model} NAME)
  get_filename_component(tokenizer_name ${tokenizer} NAME)
  set(${out_model}
      "${folder}/${model_name}"
      PARENT_SCOPE)
  set(${out_tokenizer}
      "${folder}/${tokenizer_name}"
      PARENT_SCOPE)
endfunction()

# llm_golden_prompt(<golden.json> <out>): the prompt the golden story starts from.
function(llm_golden_prompt golden_json out)
  file(READ ${golden_json} json)
  string(JSON prompt GET "${json}" prompt)
  set(${out}
      "${prompt}"
      PARENT_SCOPE)
endfunction()

# Token budget of the consumer runs (the golden has 251 tokens) and the least
# text they must add to the prompt.
set(LLM_STORY_TOKENS 64)
set(LLM_STORY_MIN_BYTES 150)
