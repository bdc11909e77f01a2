# The CMake project(VERSION) is the one source of truth for libllm's version.
# Every other place that states it must agree:
#   include/llm.h                 LLM_VERSION_MAJOR/MINOR/PATCH, LLM_VERSION_STRING
#   packaging/vcpkg/vcpkg.json    "version"
#   packaging/conan/conanfile.py  version = "..."
#   bindings/node/package.json    "version" (when the Node binding is present)
# (The .so version and the CMake/pkg-config packages take it from CMake directly.)
#   cmake -DSOURCE_DIR=<src> -DVERSION=<x.y.z> -P check_versions.cmake
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

set(problems "")
function(agree what found)
  if(NOT found STREQUAL VERSION)
    set(problems
        "${problems}  ${what} says '${found}'\n"
        PARENT_SCOPE)
  else()
    message(STATUS "${what}: ${found}")
  endif()
endfunction()

file(READ ${SOURCE_DIR}/include/llm.h header)
foreach(part MAJOR MINOR PATCH)
  if(header MATCHES "#define LLM_VERSION_${part} ([0-9]+)")
    set(${part} ${CMAKE_MATCH_1})
  endif()
endforeach()
agree("include/llm.h LLM_VERSION_MAJOR/MINOR/PATCH" "${MAJOR}.${MINOR}.${PATCH}")
string(REGEX MATCH "#define LLM_VERSION_STRING \"([^\"]*)\"" _ "${header}")
agree("include/llm.h LLM_VERSION_STRING" "${CMAKE_MATCH_1}")

file(READ ${SOURCE_DIR}/packaging/vcpkg/vcpkg.json vcpkg)
string(
  JSON
  vcpkg_version
  ERROR_VARIABLE
  err
  GET
  "${vcpkg}"
  version)
agree("packaging/vcpkg/vcpkg.json" "${vcpkg_version}")

file(READ ${SOURCE_DIR}/packaging/conan/conanfile.py conan)
string(REGEX MATCH "\n +version = \"([^\"]*)\"" _ "${conan}")
agree("packaging/conan/conanfile.py" "${CMAKE_MATCH_1}")

set(node ${SOURCE_DIR}/bindings/node/package.json)
if(EXISTS ${node})
  file(READ ${node} package)
  string(
    JSON
    node_version
    ERROR_VARIABLE
    err
    GET
    "${package}"
    version)
  agree("bindings/node/package.json" "${node_version}")
endif()

if(problems)
  message(FATAL_ERROR "The version is ${VERSION} in CMakeLists.txt project(VERSION), but\n"
                      "${problems}Change them all together: CMake's version is the reference.")
endif()
