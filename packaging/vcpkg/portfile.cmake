# vcpkg port of libllm. Use it as an overlay port:
#   vcpkg install libllm --overlay-ports=<libllm>/packaging/vcpkg
# To build a local checkout instead of the release tarball, set LLM_SOURCE_DIR
# in the environment and let it through the triplet:
#   set(VCPKG_ENV_PASSTHROUGH LLM_SOURCE_DIR)
if(DEFINED ENV{LLM_SOURCE_DIR})
  set(SOURCE_PATH "$ENV{LLM_SOURCE_DIR}")
else()
  # A maintainer fills in the repository; SHA512 0 makes vcpkg print the
  # release archive's hash on the first install.
  # cmake-format: off
  vcpkg_from_github(
    OUT_SOURCE_PATH SOURCE_PATH
    REPO OWNER/libllm
    REF "v${VERSION}"
    SHA512 0
    HEAD_REF main)
  # cmake-format: on
endif()

vcpkg_check_features(OUT_FEATURE_OPTIONS FEATURE_OPTIONS FEATURES tools LLM_BUILD_TOOLS)

# BUILD_SHARED_LIBS follows VCPKG_LIBRARY_LINKAGE.
# cmake-format: off
vcpkg_cmake_configure(
  SOURCE_PATH "${SOURCE_PATH}"
  OPTIONS
    ${FEATURE_OPTIONS}
    -DLLM_BUILD_TESTS=OFF
    -DLLM_BUILD_EXAMPLES=OFF
    -DLLM_BUILD_BINDINGS=OFF)
# cmake-format: on
vcpkg_cmake_install()
vcpkg_cmake_config_fixup(PACKAGE_NAME llm CONFIG_PATH lib/cmake/llm)
vcpkg_fixup_pkgconfig()

if("tools" IN_LIST FEATURES)
  # Every installed llm-* program: llm-run, llm-tokenize, llm-bench.
  file(
    GLOB tools
    RELATIVE "${CURRENT_PACKAGES_DIR}/bin"
    "${CURRENT_PACKAGES_DIR}/bin/llm-*")
  list(TRANSFORM tools REPLACE "[.]exe$" "")
  vcpkg_copy_tools(TOOL_NAMES ${tools} AUTO_CLEAN)
endif()

if(VCPKG_LIBRARY_LINKAGE STREQUAL "static")
  # Builds that use neither the CMake package nor pkg-config (MSBuild
  # integration) must see a static libllm too: no dllimport.
  vcpkg_replace_string("${CURRENT_PACKAGES_DIR}/include/llm.h"
                       "#if defined(LLM_STATIC) || defined(SWIG)" "#if 1 /* static libllm */")
endif()

file(REMOVE_RECURSE "${CURRENT_PACKAGES_DIR}/debug/include" "${CURRENT_PACKAGES_DIR}/debug/share")
file(INSTALL "${CMAKE_CURRENT_LIST_DIR}/usage" DESTINATION "${CURRENT_PACKAGES_DIR}/share/${PORT}")
vcpkg_install_copyright(FILE_LIST "${SOURCE_PATH}/LICENSE")
