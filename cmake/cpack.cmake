# The release tarball: `cpack -G TGZ` (or the llm_release_tarball target)
# packs what `cmake --install` installs (llm.h, libllm.so.X.Y.Z and its
# links, the CMake package, llm.pc, the tools) into
#   libllm-<version>-<system>-<processor>.tar.gz  with top folder of that name.
# A release also ships the static library: configure with
# -DLLM_RELEASE_STATIC_LIBRARY=<static build>/libllm.a to add it to lib/.
# packaging/ (vcpkg, Conan) downloads these tarballs, see packaging/README.md.
set(LLM_RELEASE_STATIC_LIBRARY
    ""
    CACHE FILEPATH
          "A static libllm (from a BUILD_SHARED_LIBS=OFF build) to add to the release tarball")
if(LLM_RELEASE_STATIC_LIBRARY)
  install(FILES ${LLM_RELEASE_STATIC_LIBRARY} DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()

set(CPACK_GENERATOR TGZ)
set(CPACK_PACKAGE_NAME libllm)
set(CPACK_PACKAGE_VENDOR "the libllm authors")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
string(TOLOWER "${CMAKE_SYSTEM_NAME}-${CMAKE_SYSTEM_PROCESSOR}" _llm_release_platform)
set(CPACK_PACKAGE_FILE_NAME libllm-${PROJECT_VERSION}-${_llm_release_platform})
set(CPACK_INCLUDE_TOPLEVEL_DIRECTORY ON)
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR}/release)
set(CPACK_SOURCE_GENERATOR "")
include(CPack)
