# Configures, builds and runs a downstream CMake project against an installed
# libllm prefix (find_package through CMAKE_PREFIX_PATH only).
#   cmake -DPROJECT_DIR=<src> -DWORK=<dir> -DPREFIX=<prefix> -DPROGRAM=<exe>
#         [-DCONFIGURE_ARGS=<list>] [-DGOLDEN= -DMODEL= -DTOKENIZER=]
#         [-DEMULATOR=<wine>] -P consumer_cmake.cmake
# With GOLDEN, PROGRAM is tests/consumer's llm-consumer: it gets the model
# (from a non-ASCII folder) and must print the golden story; otherwise it runs
# without arguments and must exit 0.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

file(REMOVE_RECURSE ${WORK})
llm_run(
  ${CMAKE_COMMAND}
  -S
  ${PROJECT_DIR}
  -B
  ${WORK}/build
  -DCMAKE_PREFIX_PATH=${PREFIX}
  ${CONFIGURE_ARGS})
llm_run(${CMAKE_COMMAND} --build ${WORK}/build)

file(GLOB_RECURSE program ${WORK}/build/${PROGRAM} ${WORK}/build/${PROGRAM}.exe)
list(FILTER program EXCLUDE REGEX "/CMakeFiles/")
if(NOT program)
  message(FATAL_ERROR "the build made no ${PROGRAM}")
endif()
list(GET program 0 program)

if(GOLDEN)
  llm_check_consumer_story(${WORK} ${EMULATOR} ${program})
else()
  llm_run(${EMULATOR} ${program} OUTPUT out)
  message(STATUS "${out}")
endif()
