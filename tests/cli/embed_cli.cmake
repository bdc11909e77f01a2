# llm-embed end to end on qwen2-tiny and stories260K: the JSON and plain
# outputs, each pooling's shape, and one-line errors.
#   cmake -DLLM_EMBED=... -DSHARED=... [-DEMULATOR=...] -P embed_cli.cmake
separate_arguments(_emulator UNIX_COMMAND "${EMULATOR}")
set(embed ${_emulator} ${LLM_EMBED})
set(qwen ${SHARED}/models/qwen2-tiny)
set(stories ${SHARED}/models/stories260K.bin -z ${SHARED}/models/tok512.bin)

function(run_embed outvar)
  execute_process(
    COMMAND ${embed} ${ARGN}
    OUTPUT_VARIABLE out
    ERROR_VARIABLE err
    RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "llm-embed ${ARGN}: exit '${rc}': ${err}")
  endif()
  set(${outvar}
      "${out}"
      PARENT_SCOPE)
endfunction()

# --json: the pooling the model asks for (mean), 64 values of unit norm.
run_embed(
  out
  ${qwen}
  -i
  "hello world"
  --json
  --threads
  1)
string(JSON pooling GET "${out}" pooling)
string(JSON dim GET "${out}" dim)
string(JSON n LENGTH "${out}" embedding)
if(NOT pooling STREQUAL "mean"
   OR NOT dim EQUAL 64
   OR NOT n EQUAL 64)
  message(FATAL_ERROR "json: pooling ${pooling}, dim ${dim}, ${n} values:\n${out}")
endif()
set(sum 0)
math(EXPR last "${n} - 1")
foreach(i RANGE ${last})
  string(JSON v GET "${out}" embedding ${i})
  # Squares in millionths (CMake's math is integer): |v| <= 1.
  if(v MATCHES "e-")
    set(v 0)
  endif()
  string(REGEX REPLACE "^-" "" v "${v}")
  string(REGEX MATCH "^([0-9]+)\\.?([0-9]*)" _ "${v}")
  set(whole ${CMAKE_MATCH_1})
  string(SUBSTRING "${CMAKE_MATCH_2}000000" 0 6 frac)
  # (1 before the digits: no leading zeros for math)
  math(EXPR micro "${whole} * 1000000 + 1${frac} - 1000000")
  math(EXPR sum "${sum} + ${micro} * ${micro} / 1000000")
endforeach()
if(sum LESS 999000 OR sum GREATER 1001000)
  message(FATAL_ERROR "json: squared norm ${sum} millionths, not about 1")
endif()

# Plain: one line per vector; none gives a line per token, and its last row
# is the last-token embedding.
run_embed(none ${stories} -i "Once upon a time" --pooling none)
run_embed(lastv ${stories} -i "Once upon a time" --pooling last)
string(REGEX REPLACE "\n$" "" none "${none}")
string(REPLACE "\n" ";" rows "${none}")
list(LENGTH rows n_rows)
list(GET rows -1 last_row)
string(STRIP "${lastv}" lastv)
if(n_rows LESS 2 OR NOT last_row STREQUAL lastv)
  message(FATAL_ERROR "none: ${n_rows} rows; last row\n${last_row}\nlast pooling\n${lastv}")
endif()
separate_arguments(values UNIX_COMMAND "${lastv}")
list(LENGTH values n)
if(NOT n EQUAL 64)
  message(FATAL_ERROR "last: ${n} values, not 64")
endif()

# Errors: non-zero exit and one line on stderr.
function(expect_failure what pattern)
  execute_process(
    COMMAND ${embed} ${ARGN}
    OUTPUT_VARIABLE out
    ERROR_VARIABLE err
    RESULT_VARIABLE rc)
  if(rc EQUAL 0 OR NOT rc MATCHES "^[0-9]+$")
    message(FATAL_ERROR "${what}: expected a failure exit, got '${rc}'")
  endif()
  if(NOT err MATCHES "${pattern}")
    message(FATAL_ERROR "${what}: error '${err}' does not match '${pattern}'")
  endif()
endfunction()
expect_failure("missing model" "^llm-embed: cannot load model: .*file not found\\)\n$"
               /nonexistent/model -i x)
expect_failure(
  "bad pooling"
  "usage: llm-embed"
  ${embed}
  ${qwen}
  -i
  x
  --pooling
  max)
expect_failure("no text" "usage: llm-embed" ${qwen})
