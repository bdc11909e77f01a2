# Builds libllm for Windows x64 with mingw-w64 (cmake/toolchains/mingw-w64.cmake)
# in BUILD: BUILD/bin/llm.dll, its import library BUILD/libllm.dll.a and the C
# example BUILD/bin/example-story.exe. One incremental build serves both the
# C# NuGet layout (runtimes/win-x64/native, bindings/csharp, at build time)
# and the windows-cross test, which find it in <build>/windows-cross/build.
# BUILD is configured again only when the arguments below change.
#   cmake -DSOURCE_DIR=<libllm> -DBUILD=<dir> [-DJOBS=<n>] -P windows_x64_build.cmake
cmake_minimum_required(VERSION 3.16)

set(args
    -G
    Ninja
    -DCMAKE_TOOLCHAIN_FILE=${SOURCE_DIR}/cmake/toolchains/mingw-w64.cmake
    -DCMAKE_BUILD_TYPE=Release
    -DLLM_BUILD_TESTS=OFF
    -DLLM_BUILD_TOOLS=OFF
    -DLLM_BUILD_EXAMPLES=ON
    -DLLM_BUILD_BINDINGS=OFF
    -DCMAKE_RUNTIME_OUTPUT_DIRECTORY=${BUILD}/bin)
set(stamp ${BUILD}/windows-x64-configure.txt)
set(previous "")
if(EXISTS ${stamp} AND EXISTS ${BUILD}/build.ninja)
  file(READ ${stamp} previous)
endif()
if(NOT previous STREQUAL "${SOURCE_DIR};${args}")
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${BUILD} ${args} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "configuring the mingw-w64 build in ${BUILD} failed (${rc})")
  endif()
  file(WRITE ${stamp} "${SOURCE_DIR};${args}")
endif()

if(NOT JOBS)
  cmake_host_system_information(RESULT JOBS QUERY NUMBER_OF_LOGICAL_CORES)
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD} --parallel ${JOBS} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the mingw-w64 build in ${BUILD} failed (${rc})")
endif()
