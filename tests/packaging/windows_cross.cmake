# Windows build of libllm, made and run on Linux:
#  1. cross-compile libllm (llm.dll + import library) and the C example with
#     mingw-w64, and install them into <WORK>/prefix;
#  2. check the DLL exports exactly the functions of abi/libllm.symbols and
#     that nothing needs a MinGW runtime DLL;
#  3. run examples/c/story.c under wine64 on the golden story;
#  4. build tests/consumer and Conan's test_package with find_package(llm)
#     against the Windows prefix and run them under wine (tests/consumer on a
#     model in a non-ASCII folder: UTF-8 paths);
#  5. with -DCSHARP_NATIVE=<NuGet layout>/runtimes/win-x64/native, load its
#     llm_csharp.dll by full path from another folder (csharp_native_load.c).
#   cmake -DSOURCE_DIR= -DWORK= -DWINE= -DSYMBOLS= -DMODEL= -DTOKENIZER= -DGOLDEN=
#         [-DCSHARP_NATIVE=] -P windows_cross.cmake
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

string(TIMESTAMP started "%s")
set(toolchain ${SOURCE_DIR}/cmake/toolchains/mingw-w64.cmake)
set(build ${WORK}/build)
set(prefix ${WORK}/prefix)
set(objdump x86_64-w64-mingw32-objdump)

# ---- 1. cross build (library and example only) -----------------------------------
# The same build as the C# NuGet layout's win-x64 natives (bindings/csharp):
# after `cmake --build`, this finds it up to date.
llm_run(${CMAKE_COMMAND} -DSOURCE_DIR=${SOURCE_DIR} -DBUILD=${build} -DJOBS=2 -P
        ${SOURCE_DIR}/cmake/windows_x64_build.cmake)
file(REMOVE_RECURSE ${prefix})
llm_run(${CMAKE_COMMAND} --install ${build} --prefix ${prefix})
foreach(f bin/llm.dll lib/libllm.dll.a include/llm.h lib/cmake/llm/llmConfig.cmake
          lib/pkgconfig/llm.pc)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "the Windows install has no ${f}")
  endif()
endforeach()

# ---- 2. exports and imports -------------------------------------------------------
llm_run(${objdump} -p ${prefix}/bin/llm.dll OUTPUT dll)
# The name table: "\t[   0] llm_chat_format" lines up to the next blank line.
string(REGEX MATCH "\\[Ordinal/Name Pointer\\] Table\n([^\n]+\n)*" table "${dll}")
string(REGEX MATCHALL "\\[ *[0-9]+\\] [A-Za-z0-9_]+" entries "${table}")
set(exported "")
foreach(entry IN LISTS entries)
  string(REGEX REPLACE "^\\[ *[0-9]+\\] " "" name "${entry}")
  list(APPEND exported ${name})
endforeach()
file(STRINGS ${SYMBOLS} expected)
list(TRANSFORM expected REPLACE "@.*" "")
list(SORT exported)
list(SORT expected)
if(NOT exported STREQUAL expected)
  set(added ${exported})
  list(REMOVE_ITEM added ${expected})
  set(missing ${expected})
  list(REMOVE_ITEM missing ${exported})
  message(FATAL_ERROR "llm.dll exports differ from ${SYMBOLS}:\n"
                      "  not in the list: ${added}\n  not exported: ${missing}")
endif()
list(LENGTH exported n)
message(STATUS "llm.dll exports the ${n} functions of the ABI list")

set(story ${build}/bin/example-story.exe)
foreach(binary ${prefix}/bin/llm.dll ${story})
  llm_run(${objdump} -p ${binary} OUTPUT dump)
  string(REGEX MATCHALL "DLL Name: [^\n]+" imports "${dump}")
  if(imports MATCHES "libstdc|libgcc|libwinpthread")
    message(FATAL_ERROR "${binary} needs a MinGW runtime DLL (link it -static): ${imports}")
  endif()
endforeach()
if(NOT dump MATCHES "DLL Name: llm.dll")
  message(FATAL_ERROR "example-story.exe does not import llm.dll")
endif()

# ---- 3. the C example under wine ----------------------------------------------------
set(ENV{WINEPREFIX} ${WORK}/wine-prefix)
set(ENV{WINEDEBUG} -all)
set(ENV{WINEDLLOVERRIDES} "mscoree,mshtml=") # no Mono/Gecko install prompts
# wine turns Unix paths into Windows ones with the locale's charset: under the
# POSIX locale (a CI shell often has no LANG) the UTF-8 folder name of step 4
# arrives mangled and the model is "not found".
set(ENV{LANG} C.UTF-8)
set(ENV{LC_ALL} C.UTF-8)
if(NOT EXISTS ${WORK}/wine-prefix/system.reg)
  llm_run(${WINE} wineboot --init TIMEOUT 300)
endif()
llm_golden_prompt(${GOLDEN} prompt)
llm_run(
  ${WINE}
  ${story}
  ${MODEL}
  ${prompt}
  ${TOKENIZER}
  OUTPUT
  out)
llm_expect_story("${out}" ${GOLDEN} ${LLM_STORY_MIN_BYTES})

# ---- 4. downstream projects found through the Windows CMake package --------------
# tests/consumer reads a model from a non-ASCII folder (UTF-8 paths); Conan's
# test_package checks that a missing file is reported as LLM_ERR_NOT_FOUND.
set(ENV{WINEPATH} ${prefix}/bin) # where Windows looks for llm.dll
foreach(project tests/consumer packaging/conan/test_package)
  get_filename_component(name ${project} NAME)
  set(consumer ${WORK}/${name})
  file(REMOVE_RECURSE ${consumer})
  # llm_DIR, not CMAKE_PREFIX_PATH: the toolchain confines package searches
  # to the MinGW sysroot.
  llm_run(
    ${CMAKE_COMMAND}
    -S
    ${SOURCE_DIR}/${project}
    -B
    ${consumer}
    -G
    Ninja
    -DCMAKE_TOOLCHAIN_FILE=${toolchain}
    -DCMAKE_BUILD_TYPE=Release
    -Dllm_DIR=${prefix}/lib/cmake/llm)
  llm_run(${CMAKE_COMMAND} --build ${consumer})
endforeach()
llm_check_consumer_story(${WORK} ${WINE} ${WORK}/consumer/llm-consumer.exe)
llm_run(${WINE} ${WORK}/test_package/test_package.exe OUTPUT out)
message(STATUS "${out}")

# ---- 5. the C# binding's win-x64 natives, loaded the way .NET loads them -----------
# A copy of the NuGet layout's runtimes/win-x64/native in an app-like tree away
# from prefix/bin and off WINEPATH: llm_csharp.dll, loaded by its full path
# with LOAD_WITH_ALTERED_SEARCH_PATH, must find llm.dll in its own folder.
if(CSHARP_NATIVE)
  set(csharp ${WORK}/csharp)
  set(native ${csharp}/app/runtimes/win-x64/native)
  file(REMOVE_RECURSE ${csharp})
  file(MAKE_DIRECTORY ${native})
  file(COPY ${CSHARP_NATIVE}/llm_csharp.dll ${CSHARP_NATIVE}/llm.dll DESTINATION ${native})
  llm_run(
    x86_64-w64-mingw32-gcc-posix
    -O2
    -static
    -I${SOURCE_DIR}/include
    ${SOURCE_DIR}/tests/packaging/csharp_native_load.c
    -o
    ${csharp}/csharp_native_load.exe)
  unset(ENV{WINEPATH})
  # A fully qualified Windows path: wine maps Z: to /.
  string(REPLACE "/" "\\" dll "Z:${native}/llm_csharp.dll")
  # The control first: without the flag, llm.dll must be on no search path.
  set(exe ${csharp}/csharp_native_load.exe)
  llm_run(
    ${WINE}
    ${exe}
    --plain
    ${dll}
    WORKING_DIRECTORY
    ${csharp}
    OUTPUT
    control
    TIMEOUT
    60)
  llm_run(
    ${WINE}
    ${exe}
    ${dll}
    WORKING_DIRECTORY
    ${csharp}
    OUTPUT
    out
    TIMEOUT
    60)
  message(STATUS "${control}${out}")
endif()

string(TIMESTAMP finished "%s")
math(EXPR seconds "${finished} - ${started}")
message(STATUS "windows-cross passed in ${seconds} s")
