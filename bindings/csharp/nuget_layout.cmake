# Lays out the C# binding as a NuGet package tree in OUT_DIR:
#   Llm.nuspec
#   lib/netstandard2.0/Llm.dll, Llm.dll.config (Mono's dllmap to runtimes/)
#   runtimes/linux-x64/native/libllm_csharp.so, libllm.so.<major>
#   runtimes/win-x64/native/llm_csharp.dll, llm.dll    (with -DWIN_X64_WRAPPER=, -DWIN_X64_LIBLLM=)
# The native wrapper's RPATH becomes $ORIGIN: it finds libllm beside it. On
# Windows, .NET loads runtimes/win-x64/native/llm_csharp.dll by its full path
# with LOAD_WITH_ALTERED_SEARCH_PATH, so llm.dll is found in that folder too.
#   cmake -DSOURCE_DIR=bindings/csharp -DOUT_DIR=dir -DASSEMBLY=Llm.dll -DWRAPPER=libllm_csharp.so
#         -DWRAPPER_RPATH=<build rpath> -DLIBLLM=libllm.so.1 -DVERSION=1.5.0 -DRID=linux-x64
#         [-DWIN_X64_WRAPPER=llm_csharp.dll -DWIN_X64_LIBLLM=llm.dll] -P nuget_layout.cmake
file(REMOVE_RECURSE ${OUT_DIR})
set(lib ${OUT_DIR}/lib/netstandard2.0)
set(native ${OUT_DIR}/runtimes/${RID}/native)
file(MAKE_DIRECTORY ${lib} ${native})
file(COPY ${ASSEMBLY} ${SOURCE_DIR}/Llm.dll.config DESTINATION ${lib})
file(COPY ${WRAPPER} DESTINATION ${native})
# The SONAME link (libllm.so.1) as a plain file: packages hold no symlinks.
get_filename_component(soname ${LIBLLM} NAME)
configure_file(${LIBLLM} ${native}/${soname} COPYONLY)
get_filename_component(wrapper_name ${WRAPPER} NAME)
if(WRAPPER_RPATH)
  file(
    RPATH_CHANGE
    FILE
    ${native}/${wrapper_name}
    OLD_RPATH
    "${WRAPPER_RPATH}"
    NEW_RPATH
    "$ORIGIN")
endif()
if(WIN_X64_WRAPPER OR WIN_X64_LIBLLM)
  set(win ${OUT_DIR}/runtimes/win-x64/native)
  foreach(dll "${WIN_X64_WRAPPER}" "${WIN_X64_LIBLLM}")
    if(NOT EXISTS "${dll}")
      message(FATAL_ERROR "runtimes/win-x64/native: ${dll} does not exist")
    endif()
  endforeach()
  file(MAKE_DIRECTORY ${win})
  configure_file(${WIN_X64_WRAPPER} ${win}/llm_csharp.dll COPYONLY)
  configure_file(${WIN_X64_LIBLLM} ${win}/llm.dll COPYONLY)
endif()
configure_file(${SOURCE_DIR}/Llm.nuspec.in ${OUT_DIR}/Llm.nuspec @ONLY)
message(STATUS "NuGet layout in ${OUT_DIR}")
