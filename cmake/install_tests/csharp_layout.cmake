# Consumes the C# NuGet layout the way a build of an app that references the
# package lays out its output: lib/netstandard2.0/* and runtimes/ next to the
# app (here the story example), in a temporary folder away from the build
# tree. Mono then finds the native library through Llm.dll.config's dllmap to
# runtimes/<rid>/native/, and that one finds libllm beside it ($ORIGIN).
#   cmake -DMONO=mono -DLAYOUT=nuget -DPROGRAM=story.exe -DWORK=dir -DSHARED_DIR=dir
#         -DSTORY_REGEX=re -P csharp_layout.cmake
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
