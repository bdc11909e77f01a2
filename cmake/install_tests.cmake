# Tests of the per-ecosystem install paths (issue 40), each against this
# build installed into a temporary prefix (install.prefix, a fixture):
#   install.lua-rock    `luarocks make` of bindings/lua's rockspec (pkg-config llm)
#   install.go-module   a module outside the repository, cgo via pkg-config
#   install.release-tarball  cpack's TGZ (cmake/cpack.cmake) and its file list
# Scripts: cmake/install_tests/*.cmake.
string(TOLOWER "${CMAKE_SYSTEM_NAME}-${CMAKE_SYSTEM_PROCESSOR}" _llm_install_platform)
add_test(
  NAME install.release-tarball
  COMMAND
    ${CMAKE_COMMAND} -DCPACK=${CMAKE_CPACK_COMMAND} -DBUILD_DIR=${CMAKE_BINARY_DIR}
    -DWORK=${CMAKE_CURRENT_BINARY_DIR}/install-tests/release
    -DNAME=libllm-${PROJECT_VERSION}-${_llm_install_platform} -DVERSION=${PROJECT_VERSION}
    -DLIBDIR=${CMAKE_INSTALL_LIBDIR} -DSHARED=${BUILD_SHARED_LIBS} "-DTOOLS=${LLM_TOOL_TARGETS}"
    -DSTATIC_LIBRARY=${LLM_RELEASE_STATIC_LIBRARY} -P
    ${CMAKE_CURRENT_LIST_DIR}/install_tests/release_tarball.cmake)

if(NOT BUILD_SHARED_LIBS OR NOT LLM_BUILD_BINDINGS)
  return()
endif()

set(_llm_install_scripts ${CMAKE_CURRENT_LIST_DIR}/install_tests)
set(_llm_install_work ${CMAKE_CURRENT_BINARY_DIR}/install-tests)
set(_llm_install_prefix ${_llm_install_work}/prefix)
set(_llm_install_story_regex
    "Once upon a time, there was a little girl named Lily\\. She loved to play")
find_program(LLM_INSTALL_PKG_CONFIG NAMES pkg-config pkgconf)
if(NOT LLM_INSTALL_PKG_CONFIG)
  message(STATUS "Install tests: pkg-config not found, skipped")
  return()
endif()

add_test(
  NAME install.prefix
  COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${CMAKE_BINARY_DIR} -DWORK=${_llm_install_work}
          -DCONFIG=$<CONFIG> -P ${CMAKE_CURRENT_SOURCE_DIR}/tests/packaging/install_prefix.cmake)
set_tests_properties(install.prefix PROPERTIES FIXTURES_SETUP llm_install_prefix)
set(_llm_install_tests "")

find_program(LLM_LUAROCKS luarocks)
find_program(LLM_INSTALL_LUA54 lua5.4)
find_program(LLM_INSTALL_LUAJIT luajit)
if(LLM_LUAROCKS AND LLM_INSTALL_LUA54)
  add_test(
    NAME install.lua-rock
    COMMAND
      ${CMAKE_COMMAND} -DLUA_DIR=${CMAKE_CURRENT_SOURCE_DIR}/bindings/lua
      -DWORK=${_llm_install_work}/lua -DPREFIX=${_llm_install_prefix}
      -DLIBDIR=${CMAKE_INSTALL_LIBDIR} -DLUAROCKS=${LLM_LUAROCKS} -DLUA=${LLM_INSTALL_LUA54}
      -DLUAJIT=${LLM_INSTALL_LUAJIT} -DSHARED_DIR=${LLM_SHARED_DIR}
      "-DSTORY_REGEX=${_llm_install_story_regex}" -P ${_llm_install_scripts}/lua_rock.cmake)
  list(APPEND _llm_install_tests install.lua-rock)
else()
  message(STATUS "Install tests: luarocks or lua5.4 not found, no install.lua-rock")
endif()

find_program(LLM_INSTALL_GO go)
if(LLM_INSTALL_GO)
  add_test(
    NAME install.go-module
    COMMAND
      ${CMAKE_COMMAND} -DGO=${LLM_INSTALL_GO} -DGO_DIR=${CMAKE_CURRENT_SOURCE_DIR}/bindings/go
      -DWORK=${_llm_install_work}/go -DPREFIX=${_llm_install_prefix}
      -DLIBDIR=${CMAKE_INSTALL_LIBDIR} -DSHARED_DIR=${LLM_SHARED_DIR}
      "-DSTORY_REGEX=${_llm_install_story_regex}" -P ${_llm_install_scripts}/go_module.cmake)
  list(APPEND _llm_install_tests install.go-module)
endif()

if(_llm_install_tests)
  set_tests_properties(${_llm_install_tests} PROPERTIES FIXTURES_REQUIRED llm_install_prefix)
endif()

# C#: the NuGet layout (bindings/csharp/nuget_layout.cmake, the llm_csharp_nuget target).
# With win-x64 natives (mingw-w64), their PE format, exports and imports too.
if(TARGET llm_csharp_nuget AND LLM_MONO)
  set(_llm_csharp_out ${CMAKE_BINARY_DIR}/bindings/csharp)
  set(_llm_csharp_win_x64 OFF)
  if(TARGET llm_csharp_win_x64 OR LLM_CSHARP_WIN_X64_DIR)
    set(_llm_csharp_win_x64 ON)
  endif()
  add_test(
    NAME install.csharp-layout
    COMMAND
      ${CMAKE_COMMAND} -DMONO=${LLM_MONO} -DLAYOUT=${_llm_csharp_out}/nuget
      -DPROGRAM=${_llm_csharp_out}/story.exe -DWORK=${_llm_install_work}/csharp
      -DSHARED_DIR=${LLM_SHARED_DIR} "-DSTORY_REGEX=${_llm_install_story_regex}"
      -DWIN_X64=${_llm_csharp_win_x64} -DOBJDUMP=x86_64-w64-mingw32-objdump -DNM=${CMAKE_NM} -P
      ${_llm_install_scripts}/csharp_layout.cmake)
endif()
