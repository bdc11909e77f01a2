# Compares the dynamic symbols a built libllm.so exports with the committed
# list, or rewrites the list (-DUPDATE=ON).
#   cmake -DLIBRARY=libllm.so.1.5.0 -DSYMBOLS=abi/libllm.symbols -DNM=nm
#         -DOBJDUMP=objdump -DSONAME=libllm.so.1 [-DUPDATE=ON] -P abi_symbols.cmake
# Lines of the list are "name@@VERSION_NODE" as `nm -D` prints them.
cmake_minimum_required(VERSION 3.16)

execute_process(
  COMMAND ${NM} -D --defined-only ${LIBRARY}
  OUTPUT_VARIABLE nm_out
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} -D --defined-only ${LIBRARY} failed (${rc})")
endif()
string(REPLACE "\n" ";" nm_lines "${nm_out}")
set(exported "")
foreach(line IN LISTS nm_lines)
  # "0000000000007c10 T llm_context_cancel@@LLM_1.0"; "A" lines are version nodes.
  if(line MATCHES "^[0-9a-fA-F]* ([A-Za-z]) (.+)$")
    if(NOT CMAKE_MATCH_1 STREQUAL "A")
      list(APPEND exported "${CMAKE_MATCH_2}")
    endif()
  endif()
endforeach()
list(SORT exported)

if(UPDATE)
  list(JOIN exported "\n" text)
  file(WRITE ${SYMBOLS} "${text}\n")
  list(LENGTH exported n)
  message(STATUS "Wrote ${n} symbols to ${SYMBOLS}")
  return()
endif()

file(STRINGS ${SYMBOLS} expected)
list(SORT expected)
set(added ${exported})
list(REMOVE_ITEM added ${expected})
set(removed ${expected})
list(REMOVE_ITEM removed ${exported})

set(problems "")
if(added)
  list(JOIN added "\n  " text)
  string(APPEND problems "libllm exports symbols that are not in the list:\n  ${text}\n")
endif()
if(removed)
  list(JOIN removed "\n  " text)
  string(APPEND problems "symbols in the list are no longer exported:\n  ${text}\n")
endif()

execute_process(COMMAND ${OBJDUMP} -p ${LIBRARY} OUTPUT_VARIABLE dump)
if(NOT dump MATCHES "SONAME +([^\n]+)")
  string(APPEND problems "${LIBRARY} has no SONAME\n")
elseif(NOT CMAKE_MATCH_1 STREQUAL SONAME)
  string(APPEND problems "SONAME is ${CMAKE_MATCH_1}, expected ${SONAME}\n")
endif()

if(problems)
  message(
    FATAL_ERROR
      "${problems}\n"
      "The public ABI of libllm changed (${SYMBOLS}).\n"
      "If it is deliberate: an added function (appended to llm.h, named llm_*) is compatible;"
      " refresh the list with `cmake --build <build> --target abi-update` and commit it."
      " A removed, renamed or re-typed function breaks every program built against the"
      " old header: that needs a new major version in project(VERSION) (the SONAME"
      " libllm.so.<major>) and a new version node in src/llm.map."
      " Internal symbols must never be exported: keep them out of the llm_ namespace"
      " or hidden (src/llm.map, visibility).")
endif()
list(LENGTH exported n)
message(STATUS "${n} exported symbols match ${SYMBOLS}; SONAME ${SONAME}")
