# Helpers shared by the packaging test scripts (run with cmake -P).
cmake_minimum_required(VERSION 3.19) # string(JSON)

# llm_run(<command...> [WORKING_DIRECTORY dir] [OUTPUT var] [TIMEOUT seconds]):
# runs a command, fails the test with its output if it exits non-zero or runs
# longer than TIMEOUT (default 600 s: a hung program fails this step, with
# its name, instead of the whole test run).
function(llm_run)
  cmake_parse_arguments(arg "" "WORKING_DIRECTORY;OUTPUT;TIMEOUT" "" ${ARGN})
  if(NOT arg_WORKING_DIRECTORY)
    set(arg_WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  endif()
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT 600)
  endif()
  list(JOIN arg_UNPARSED_ARGUMENTS " " shown)
  message(STATUS "$ ${shown}")
  execute_process(
    COMMAND ${arg_UNPARSED_ARGUMENTS}
    WORKING_DIRECTORY ${arg_WORKING_DIRECTORY}
    TIMEOUT ${arg_TIMEOUT}
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

# llm_check_consumer_story(<work> <command...>): runs tests/consumer's program
# (<command> = [emulator] program) on a copy of MODEL and TOKENIZER in a folder
# of <work> whose name is not ASCII (UTF-8 paths must reach the file system
# intact) and checks what it prints against GOLDEN.
function(llm_check_consumer_story work)
  set(folder "${work}/modèle-模型")
  file(MAKE_DIRECTORY "${folder}")
  file(COPY ${MODEL} ${TOKENIZER} DESTINATION "${folder}")
  get_filename_component(model ${MODEL} NAME)
  get_filename_component(tokenizer ${TOKENIZER} NAME)
  llm_golden_prompt(${GOLDEN} prompt)
  llm_run(
    ${ARGN}
    ${folder}/${model}
    ${folder}/${tokenizer}
    ${prompt}
    ${LLM_STORY_TOKENS}
    OUTPUT
    out)
  llm_expect_story("${out}" ${GOLDEN} ${LLM_STORY_MIN_BYTES})
endfunction()

# llm_expect(<problem> <condition...>): adds <problem> to the variable
# `problems` unless the if() condition holds; llm_report_problems(<what>)
# then fails with all of them at once.
macro(llm_expect problem)
  if(NOT (${ARGN}))
    string(APPEND problems "  ${problem}\n")
  endif()
endmacro()
function(llm_report_problems what)
  if(problems)
    message(FATAL_ERROR "${what}:\n${problems}")
  endif()
endfunction()
