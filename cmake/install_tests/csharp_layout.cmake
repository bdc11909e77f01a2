# Consumes the C# NuGet layout the way a build of an app that references the
# package lays out its output: lib/netstandard2.0/* and runtimes/ next to the
# app (here the story example), in a temporary folder away from the build
# tree. Mono then finds the native library through Llm.dll.config's dllmap to
# runtimes/<rid>/native/, and that one finds libllm beside it ($ORIGIN).
# With -DWIN_X64=ON the layout must also hold runtimes/win-x64/native (the
# mingw-w64 build): x86-64 PE DLLs, llm_csharp.dll exporting what
# libllm_csharp.so does (every P/Invoke entry of Llm.dll among them),
# importing llm.dll and no MinGW runtime DLL. windows-cross loads it under wine.
#   cmake -DMONO=mono -DLAYOUT=nuget -DPROGRAM=story.exe -DWORK=dir -DSHARED_DIR=dir
#         -DSTORY_REGEX=re [-DWIN_X64=ON -DOBJDUMP=x86_64-w64-mingw32-objdump -DNM=nm]
#         -P csharp_layout.cmake
include(${CMAKE_CURRENT_LIST_DIR}/../../tests/packaging/common.cmake)

foreach(file Llm.nuspec lib/netstandard2.0/Llm.dll lib/netstandard2.0/Llm.dll.config)
  if(NOT EXISTS ${LAYOUT}/${file})
    message(FATAL_ERROR "the NuGet layout lacks ${file}")
  endif()
endforeach()
file(GLOB natives ${LAYOUT}/runtimes/*/native/*)
if(NOT natives)
  message(FATAL_ERROR "the NuGet layout has no runtimes/<rid>/native/ library")
endif()

# Every runtime ID folder holds the wrapper and libllm, and Mono's dllmap
# (Llm.dll.config) names the wrapper file that is there.
file(
  GLOB rids
  RELATIVE ${LAYOUT}/runtimes
  ${LAYOUT}/runtimes/*)
if(WIN_X64 AND NOT "win-x64" IN_LIST rids)
  message(FATAL_ERROR "the NuGet layout has no runtimes/win-x64 (the mingw-w64 build)")
endif()
file(READ ${LAYOUT}/lib/netstandard2.0/Llm.dll.config dllmap)
file(READ ${LAYOUT}/Llm.nuspec nuspec)
if(NOT nuspec MATCHES "<file src=\"runtimes/\\*\\*\" target=\"runtimes\" />")
  message(FATAL_ERROR "Llm.nuspec does not pack runtimes/**")
endif()
foreach(rid IN LISTS rids)
  if(rid MATCHES "^win-")
    set(files llm_csharp.dll llm.dll)
  else()
    set(files libllm_csharp.so libllm.so.[0-9]*)
  endif()
  foreach(pattern IN LISTS files)
    file(GLOB found ${LAYOUT}/runtimes/${rid}/native/${pattern})
    if(NOT found)
      message(FATAL_ERROR "runtimes/${rid}/native has no ${pattern}")
    endif()
  endforeach()
  list(GET files 0 wrapper)
  if(NOT dllmap MATCHES "dll=\"llm_csharp\"[^>]*target=\"runtimes/${rid}/native/${wrapper}\"")
    message(FATAL_ERROR "Llm.dll.config maps llm_csharp to no runtimes/${rid}/native/${wrapper}")
  endif()
endforeach()
message(STATUS "NuGet layout runtime IDs: ${rids}")

if(WIN_X64)
  file(GLOB so ${LAYOUT}/runtimes/linux-*/native/libllm_csharp.so)
  set(win ${LAYOUT}/runtimes/win-x64/native)
  # What Llm.dll P/Invokes: the wrapper entry names in its metadata strings
  # (SWIG's callback registrations are left out: their C# method names differ
  # from their entry names), and [DllImport("llm_csharp")], llm_csharp.dll on
  # Windows.
  file(STRINGS ${LAYOUT}/lib/netstandard2.0/Llm.dll strings
       REGEX "^(CSharp_[A-Za-z0-9_]+|LlmRegisterErrorSink_LlmNative|llm_csharp)$")
  set(pinvoked ${strings})
  list(REMOVE_ITEM pinvoked llm_csharp)
  list(REMOVE_DUPLICATES pinvoked)
  if(NOT "llm_csharp" IN_LIST strings OR NOT pinvoked)
    message(FATAL_ERROR "Llm.dll has no P/Invokes into llm_csharp")
  endif()
  llm_run(${NM} -D --defined-only ${so} OUTPUT out)
  string(REGEX MATCHALL "[^\n]+ T [A-Za-z0-9_]+" lines "${out}")
  list(TRANSFORM lines REPLACE ".* T " "")
  set(linux_exports ${lines})

  foreach(dll llm_csharp.dll llm.dll)
    llm_run(${OBJDUMP} -f ${win}/${dll} OUTPUT out)
    if(NOT out MATCHES "file format pei-x86-64")
      message(FATAL_ERROR "runtimes/win-x64/native/${dll} is no x86-64 PE file:\n${out}")
    endif()
    llm_run(${OBJDUMP} -p ${win}/${dll} OUTPUT dump)
    string(REGEX MATCHALL "DLL Name: [^\n]+" imports "${dump}")
    if(imports MATCHES "libstdc|libgcc|libwinpthread")
      message(FATAL_ERROR "${dll} needs a MinGW runtime DLL: ${imports}")
    endif()
  endforeach()
  # llm_csharp.dll: its export name table ("\t[   0] CSharp_..." lines) and imports.
  llm_run(${OBJDUMP} -p ${win}/llm_csharp.dll OUTPUT dump)
  string(REGEX MATCHALL "DLL Name: [^\n]+" imports "${dump}")
  if(NOT imports MATCHES "DLL Name: llm.dll")
    message(FATAL_ERROR "llm_csharp.dll does not import llm.dll: ${imports}")
  endif()
  string(REGEX MATCH "\\[Ordinal/Name Pointer\\] Table\n([^\n]+\n)*" table "${dump}")
  string(REGEX MATCHALL "\\[ *[0-9]+\\] [A-Za-z0-9_]+" entries "${table}")
  list(TRANSFORM entries REPLACE "^\\[ *[0-9]+\\] " "")
  set(win_exports ${entries})
  list(SORT win_exports)
  list(SORT linux_exports)
  if(NOT win_exports STREQUAL linux_exports)
    set(only_win ${win_exports})
    list(REMOVE_ITEM only_win ${linux_exports})
    set(only_linux ${linux_exports})
    list(REMOVE_ITEM only_linux ${win_exports})
    message(FATAL_ERROR "llm_csharp.dll and libllm_csharp.so export different functions:\n"
                        "  only llm_csharp.dll: ${only_win}\n  only the .so: ${only_linux}")
  endif()
  set(missing ${pinvoked})
  list(REMOVE_ITEM missing ${win_exports})
  if(missing)
    message(FATAL_ERROR "Llm.dll P/Invokes what llm_csharp.dll does not export: ${missing}")
  endif()
  list(LENGTH win_exports n_exports)
  list(LENGTH pinvoked n_pinvoked)
  message(STATUS "runtimes/win-x64/native: x86-64 PE, llm_csharp.dll exports the ${n_exports} "
                 "functions of libllm_csharp.so (${n_pinvoked} P/Invoke entries of Llm.dll "
                 "among them) and imports llm.dll")
endif()

set(app ${WORK}/app)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${app})
file(GLOB managed ${LAYOUT}/lib/netstandard2.0/*)
file(COPY ${managed} ${LAYOUT}/runtimes ${PROGRAM} DESTINATION ${app})
get_filename_component(program ${PROGRAM} NAME)
llm_run(
  ${CMAKE_COMMAND}
  -E
  env
  --unset=LD_LIBRARY_PATH
  --unset=MONO_PATH
  LLM_SHARED_DIR=${SHARED_DIR}
  ${MONO}
  ${app}/${program}
  WORKING_DIRECTORY
  ${WORK}
  OUTPUT
  out)
if(NOT out MATCHES "${STORY_REGEX}")
  message(FATAL_ERROR "C# story from the NuGet layout: unexpected output\n${out}")
endif()
message(STATUS "mono + NuGet layout: ${out}")
