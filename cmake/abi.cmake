# ABI guard.
#   abi.symbols      the dynamic symbols libllm exports equal abi/libllm.symbols,
#                    and the SONAME is libllm.so.<major version>
#   abi.header-c99   llm.h compiles as strict C99 and as C++ without a warning,
#   abi.header-cxx   with the public structs' field offsets and constants frozen
# After a deliberate change of the exported functions, refresh the list with
#   cmake --build <build> --target abi-update
# and commit it. A removed or changed function is a breaking change: it bumps
# the major version in project(VERSION), hence the SONAME.
set(LLM_ABI_SYMBOLS ${CMAKE_CURRENT_SOURCE_DIR}/abi/libllm.symbols)
set(LLM_ABI_SCRIPT ${CMAKE_CURRENT_SOURCE_DIR}/tests/packaging/abi_symbols.cmake)

if(BUILD_SHARED_LIBS AND CMAKE_SYSTEM_NAME STREQUAL "Linux")
  set(_llm_abi_args -DLIBRARY=$<TARGET_FILE:llm> -DSYMBOLS=${LLM_ABI_SYMBOLS} -DNM=${CMAKE_NM}
                    -DOBJDUMP=${CMAKE_OBJDUMP} -DSONAME=libllm.so.${PROJECT_VERSION_MAJOR})
  add_test(NAME abi.symbols COMMAND ${CMAKE_COMMAND} ${_llm_abi_args} -P ${LLM_ABI_SCRIPT})
  add_custom_target(
    abi-update
    COMMAND ${CMAKE_COMMAND} ${_llm_abi_args} -DUPDATE=ON -P ${LLM_ABI_SCRIPT}
    DEPENDS llm
    COMMENT "Writing the symbols libllm exports to abi/libllm.symbols"
    VERBATIM)
endif()

if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang" AND CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  set(_llm_header_check ${CMAKE_CURRENT_SOURCE_DIR}/tests/abi/header_check.c)
  set(_llm_include -I${CMAKE_CURRENT_SOURCE_DIR}/include)
  add_test(NAME abi.header-c99 COMMAND ${CMAKE_C_COMPILER} -std=c99 -Wall -Wextra -Werror -pedantic
                                       -fsyntax-only ${_llm_include} ${_llm_header_check})
  add_test(NAME abi.header-cxx
           COMMAND ${CMAKE_CXX_COMPILER} -x c++ -std=c++11 -Wall -Wextra -Werror -pedantic
                   -fsyntax-only ${_llm_include} ${_llm_header_check})
endif()
