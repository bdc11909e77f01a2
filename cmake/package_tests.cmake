# Tests of what users install (see tests/packaging/*.cmake for each step):
#   package.version                  every stated version equals project(VERSION)
#   package.install-<kind>           installs a build into a prefix, then moves it
#   package.layout-<kind>            files, links, llm.pc, version rules, installed llm-run
#   package.consumer-cmake-<kind>    tests/consumer via find_package(llm 1 CONFIG REQUIRED)
#   package.consumer-pkgconfig-<kind> tests/consumer/consumer.c via pkg-config
#   package.vcpkg-port-<kind>        packaging/vcpkg/portfile.cmake with stand-in helpers
#   package.conan-test-package-<kind> packaging/conan/test_package against the prefix
#   package.conan-recipe             packaging/conan/conanfile.py with a stand-in conan
# <kind> is shared and static: this build gives one, a sub-build (library and
# tools only) the other.
option(LLM_PACKAGING_TESTS "Test the installed package, the recipes and the Windows build" ON)
if(NOT LLM_PACKAGING_TESTS)
  return()
endif()
if(CMAKE_VERSION VERSION_LESS 3.19)
  message(STATUS "Packaging tests skipped: they need CMake 3.19 (string(JSON))")
  return()
endif()

set(_llm_scripts ${CMAKE_CURRENT_SOURCE_DIR}/tests/packaging)
set(_llm_work ${CMAKE_CURRENT_BINARY_DIR}/package-tests)
set(_llm_golden ${LLM_SHARED_DIR}/golden/llama2c/stories260K_once_upon.json)
set(_llm_story -DMODEL=${LLM_SHARED_DIR}/models/stories260K.bin
               -DTOKENIZER=${LLM_SHARED_DIR}/models/tok512.bin -DGOLDEN=${_llm_golden})
find_program(LLM_PKG_CONFIG NAMES pkg-config pkgconf)
find_program(LLM_PYTHON3 NAMES python3)

add_test(NAME package.version
         COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_CURRENT_SOURCE_DIR}
                 -DVERSION=${PROJECT_VERSION} -P ${_llm_scripts}/check_versions.cmake)

# Programs linked to a sanitized libllm need the sanitizer runtime themselves.
set(_llm_consumer_flags "")
if(LLM_SANITIZE)
  set(_llm_consumer_flags -fsanitize=address,undefined)
endif()
list(JOIN _llm_consumer_flags " " _llm_consumer_flags_string)
set(_llm_consumer_configure
    -G ${CMAKE_GENERATOR} -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE}
    -DCMAKE_C_COMPILER=${CMAKE_C_COMPILER} "-DCMAKE_C_FLAGS=${_llm_consumer_flags_string}")

set(_llm_vcpkg_features core)
if(LLM_BUILD_TOOLS)
  list(APPEND _llm_vcpkg_features tools)
endif()

if(BUILD_SHARED_LIBS)
  set(_llm_this_kind shared)
else()
  set(_llm_this_kind static)
endif()

foreach(kind shared static)
  set(work ${_llm_work}/${kind})
  set(prefix ${work}/prefix)
  set(shared OFF)
  set(static ON)
  set(linkage static)
  if(kind STREQUAL "shared")
    set(shared ON)
    set(static OFF)
    set(linkage dynamic)
  endif()

  if(kind STREQUAL _llm_this_kind)
    set(install_args -DBUILD_DIR=${CMAKE_BINARY_DIR})
  else()
    set(sub_build_args
        -G
        ${CMAKE_GENERATOR}
        -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE}
        -DCMAKE_C_COMPILER=${CMAKE_C_COMPILER}
        -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
        -DBUILD_SHARED_LIBS=${shared}
        -DLLM_BUILD_TESTS=OFF
        -DLLM_BUILD_EXAMPLES=OFF
        -DLLM_BUILD_BINDINGS=OFF
        -DLLM_BUILD_TOOLS=${LLM_BUILD_TOOLS}
        -DLLM_SANITIZE=${LLM_SANITIZE})
    # One -DCONFIGURE_ARGS=a;b;c argument, even inside the install_args list.
    string(REPLACE ";" "\\;" sub_build_args "${sub_build_args}")
    set(install_args -DSOURCE_DIR=${CMAKE_CURRENT_SOURCE_DIR} "-DCONFIGURE_ARGS=${sub_build_args}")
  endif()
  add_test(NAME package.install-${kind}
           COMMAND ${CMAKE_COMMAND} ${install_args} -DWORK=${work} -DCONFIG=$<CONFIG> -P
                   ${_llm_scripts}/install_prefix.cmake)
  set_tests_properties(package.install-${kind} PROPERTIES FIXTURES_SETUP llm_prefix_${kind})

  add_test(
    NAME package.layout-${kind}
    COMMAND
      ${CMAKE_COMMAND} -DPREFIX=${prefix} -DSOURCE_DIR=${CMAKE_CURRENT_SOURCE_DIR}
      -DVERSION=${PROJECT_VERSION} -DSHARED=${shared} -DLIBDIR=${CMAKE_INSTALL_LIBDIR}
      -DINCLUDEDIR=${CMAKE_INSTALL_INCLUDEDIR} -DBINDIR=${CMAKE_INSTALL_BINDIR}
      -DPACKAGE_DIR=${LLM_CMAKE_PACKAGE_DIR} "-DTOOLS=${LLM_TOOL_TARGETS}"
      -DPKG_CONFIG=${LLM_PKG_CONFIG} ${_llm_story} -P ${_llm_scripts}/check_layout.cmake)

  add_test(
    NAME package.consumer-cmake-${kind}
    COMMAND
      ${CMAKE_COMMAND} -DPROJECT_DIR=${CMAKE_CURRENT_SOURCE_DIR}/tests/consumer
      -DWORK=${work}/consumer-cmake -DPREFIX=${prefix} -DPROGRAM=llm-consumer
      "-DCONFIGURE_ARGS=${_llm_consumer_configure}" ${_llm_story} -P
      ${_llm_scripts}/consumer_cmake.cmake)

  add_test(
    NAME package.consumer-pkgconfig-${kind}
    COMMAND
      ${CMAKE_COMMAND} -DSOURCE=${CMAKE_CURRENT_SOURCE_DIR}/tests/consumer/consumer.c
      -DWORK=${work}/consumer-pkgconfig -DPREFIX=${prefix} -DLIBDIR=${CMAKE_INSTALL_LIBDIR}
      -DSTATIC=${static} -DCC=${CMAKE_C_COMPILER} "-DC_FLAGS=${_llm_consumer_flags}"
      -DPKG_CONFIG=${LLM_PKG_CONFIG} -DOBJDUMP=${CMAKE_OBJDUMP} ${_llm_story} -P
      ${_llm_scripts}/consumer_pkgconfig.cmake)

  add_test(
    NAME package.vcpkg-port-${kind}
    COMMAND
      ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_CURRENT_SOURCE_DIR} -DPREFIX=${prefix}
      -DWORK=${work}/vcpkg -DLINKAGE=${linkage} -DGENERATOR=${CMAKE_GENERATOR}
      "-DFEATURES=${_llm_vcpkg_features}" -P ${_llm_scripts}/vcpkg_port.cmake)

  add_test(
    NAME package.conan-test-package-${kind}
    COMMAND
      ${CMAKE_COMMAND} -DPROJECT_DIR=${CMAKE_CURRENT_SOURCE_DIR}/packaging/conan/test_package
      -DWORK=${work}/conan-test-package -DPREFIX=${prefix} -DPROGRAM=test_package
      "-DCONFIGURE_ARGS=${_llm_consumer_configure}" -P ${_llm_scripts}/consumer_cmake.cmake)

  set_tests_properties(
    package.layout-${kind} package.consumer-cmake-${kind} package.consumer-pkgconfig-${kind}
    package.vcpkg-port-${kind} package.conan-test-package-${kind} PROPERTIES FIXTURES_REQUIRED
                                                                             llm_prefix_${kind})
  if(NOT LLM_PKG_CONFIG)
    set_tests_properties(package.layout-${kind} package.consumer-pkgconfig-${kind}
                         PROPERTIES DISABLED ON)
  endif()
endforeach()

if(LLM_PYTHON3)
  add_test(NAME package.conan-recipe
           COMMAND ${LLM_PYTHON3} ${_llm_scripts}/conan_recipe.py ${CMAKE_CURRENT_SOURCE_DIR}
                   ${PROJECT_VERSION} ${_llm_work}/conan ${CMAKE_COMMAND} ${CMAKE_GENERATOR})
endif()
