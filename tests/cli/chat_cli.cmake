# llm-run --chat --interactive on qwen2-tiny, greedy: two lines of stdin are
# two user turns, each answered (stdin not a terminal: a transcript, each
# user line echoed as "> line"). The model has random weights, so the answers
# are noise; what is checked is the conversation's mechanics: the first
# answer starts the one-shot `--chat -i` answer to the same message, a second
# answer follows, and -i plus one stdin line is the same conversation.
#   cmake -DLLM_RUN=... -DSHARED=... -P chat_cli.cmake
include(${CMAKE_CURRENT_LIST_DIR}/tools.cmake)

set(model "${SHARED}/models/qwen2-tiny")
set(work "${CMAKE_CURRENT_BINARY_DIR}/chat_cli")
file(MAKE_DIRECTORY "${work}")

function(expect what actual expected)
  if(NOT actual STREQUAL expected)
    message(FATAL_ERROR "${what}:\n--- got ---\n${actual}\n--- expected ---\n${expected}")
  endif()
endfunction()

execute_process(
  COMMAND ${LLM_RUN} ${model} -t 0 -n 96 --chat -i "Hello"
  OUTPUT_VARIABLE one_shot
  RESULT_VARIABLE rc)
expect("llm-run --chat -i exit code" "${rc}" "0")

file(WRITE "${work}/two_turns.txt" "Hello\nHow are you?\n")
execute_process(
  COMMAND ${LLM_RUN} ${model} -t 0 -n 96 --turn-tokens 12 --chat --interactive
  INPUT_FILE "${work}/two_turns.txt"
  OUTPUT_VARIABLE two
  ERROR_VARIABLE err
  RESULT_VARIABLE rc)
expect("llm-run --interactive exit code (${err})" "${rc}" "0")

# "> Hello\n" A1 "\n> How are you?\n" A2 "\n"
set(second_turn "\n> How are you?\n")
string(FIND "${two}" "${second_turn}" at)
if(at LESS 0 OR NOT two MATCHES "^> Hello\n")
  message(FATAL_ERROR "not a two-turn transcript:\n${two}")
endif()
math(EXPR n_first "${at} - 8")
string(SUBSTRING "${two}" 8 ${n_first} first)
string(LENGTH "${second_turn}" n)
math(EXPR from "${at} + ${n}")
string(SUBSTRING "${two}" ${from} -1 second)
if(first STREQUAL ""
   OR second STREQUAL ""
   OR second STREQUAL "\n")
  message(FATAL_ERROR "two answers expected:\n${two}")
endif()
string(FIND "${one_shot}" "${first}" where)
expect("the first answer starts the one-shot answer" "${where}" "0")

file(WRITE "${work}/second_turn.txt" "How are you?\n")
execute_process(
  COMMAND ${LLM_RUN} ${model} -t 0 -n 96 --turn-tokens 12 --chat --interactive -i "Hello"
  INPUT_FILE "${work}/second_turn.txt"
  OUTPUT_VARIABLE again
  RESULT_VARIABLE rc)
expect("llm-run --interactive -i exit code" "${rc}" "0")
expect("the same two turns" "${again}" "${two}")
