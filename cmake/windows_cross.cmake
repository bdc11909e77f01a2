# windows-cross: cross-compiles llm.dll, its import library and the C example
# for Windows with Debian's mingw-w64 (cmake/toolchains/mingw-w64.cmake),
# installs them, builds tests/consumer against that prefix, and runs both
# programs under wine64 (tests/packaging/windows_cross.cmake). It takes a few
# minutes; -DLLM_TEST_WINDOWS=OFF (or -DLLM_PACKAGING_TESTS=OFF) skips it. Its
# build folder, windows-cross/build (cmake/windows_x64_build.cmake), is also
# where the C# NuGet layout's win-x64 natives come from at build time.
find_program(LLM_MINGW_CXX x86_64-w64-mingw32-g++-posix)
find_program(LLM_WINE64 wine64 PATHS /usr/lib/wine)
find_program(
  LLM_WINESERVER
  NAMES wineserver64 wineserver
  PATHS /usr/lib/wine)
set(_llm_windows_default OFF)
if(LLM_MINGW_CXX AND LLM_WINE64)
  set(_llm_windows_default ON)
endif()
option(LLM_TEST_WINDOWS "Cross-compile for Windows (mingw-w64) and run the C programs under wine"
       ${_llm_windows_default})

# The C# NuGet layout's win-x64 natives, when the build makes them, are loaded
# under wine too (bindings/csharp).
set(_llm_csharp_native "")
if(TARGET llm_csharp_nuget AND (TARGET llm_csharp_win_x64 OR LLM_CSHARP_WIN_X64_DIR))
  set(_llm_csharp_native ${CMAKE_BINARY_DIR}/bindings/csharp/nuget/runtimes/win-x64/native)
endif()

if(LLM_TEST_WINDOWS
   AND LLM_PACKAGING_TESTS
   AND CMAKE_VERSION VERSION_GREATER_EQUAL 3.19)
  add_test(
    NAME windows-cross
    COMMAND
      ${CMAKE_CURRENT_SOURCE_DIR}/tests/packaging/with_wineserver_cleanup.sh
      ${CMAKE_CURRENT_BINARY_DIR}/windows-cross/wine-prefix ${LLM_WINESERVER} ${CMAKE_COMMAND}
      -DSOURCE_DIR=${CMAKE_CURRENT_SOURCE_DIR} -DWORK=${CMAKE_CURRENT_BINARY_DIR}/windows-cross
      -DWINE=${LLM_WINE64} -DSYMBOLS=${CMAKE_CURRENT_SOURCE_DIR}/abi/libllm.symbols
      -DMODEL=${LLM_SHARED_DIR}/models/stories260K.bin
      -DTOKENIZER=${LLM_SHARED_DIR}/models/tok512.bin
      -DGOLDEN=${LLM_SHARED_DIR}/golden/llama2c/stories260K_once_upon.json
      -DCSHARP_NATIVE=${_llm_csharp_native} -P
      ${CMAKE_CURRENT_SOURCE_DIR}/tests/packaging/windows_cross.cmake)
  set_tests_properties(windows-cross PROPERTIES TIMEOUT 900)
endif()
