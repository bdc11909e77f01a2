# Lays out the C# binding as a NuGet package tree in OUT_DIR:
#   Llm.nuspec
#   lib/netstandard2.0/Llm.dll, Llm.dll.config (Mono's dllmap to runtimes/)
#   runtimes/linux-x64/native/libllm_csharp.so, libllm.so.<major>
#   runtimes/win-x64/native/llm_csharp.dll, llm.dll    (with -DWIN_X64_DIR=<mingw build>)
# The native wrapper's RPATH becomes $ORIGIN: it finds libllm beside it.
#   cmake -DSOURCE_DIR=bindings/csharp -DOUT_DIR=dir -DASSEMBLY=Llm.dll -DWRAPPER=libllm_csharp.so
#         -DWRAPPER_RPATH=<build rpath> -DLIBLLM=libllm.so.1 -DVERSION=1.4.0 -DRID=linux-x64
#         -P nuget_layout.cmake
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
if(WIN_X64_DIR)
  set(win ${OUT_DIR}/runtimes/win-x64/native)
  file(MAKE_DIRECTORY ${win})
  file(COPY ${WIN_X64_DIR}/llm_csharp.dll ${WIN_X64_DIR}/llm.dll DESTINATION ${win})
endif()
configure_file(${SOURCE_DIR}/Llm.nuspec.in ${OUT_DIR}/Llm.nuspec @ONLY)
message(STATUS "NuGet layout in ${OUT_DIR}")
