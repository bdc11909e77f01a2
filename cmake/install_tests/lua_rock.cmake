# Installs the Lua binding the way a user does: `luarocks make` of
# bindings/lua's rockspec (a copy, so the source tree stays clean) into a
# temporary tree, against the libllm installed in PREFIX (pkg-config), then
# runs the story example with lua5.4 (C module) and, if given, LuaJIT (FFI,
# libllm.so.1 by its SONAME from the loader path).
#   cmake -DLUA_DIR=bindings/lua -DWORK=dir -DPREFIX=prefix -DLIBDIR=lib -DLUAROCKS=luarocks
#         -DLUA=lua5.4 [-DLUAJIT=luajit] -DSHARED_DIR=dir -DSTORY_REGEX=re -P lua_rock.cmake
include(${CMAKE_CURRENT_LIST_DIR}/../../tests/packaging/common.cmake)

set(src ${WORK}/src)
set(tree ${WORK}/tree)
file(REMOVE_RECURSE ${WORK})
file(GLOB rockspecs ${LUA_DIR}/*.rockspec)
list(LENGTH rockspecs n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "expected one rockspec in ${LUA_DIR}, found: ${rockspecs}")
endif()
file(GLOB files ${LUA_DIR}/*.lua ${LUA_DIR}/llm_core_wrap.c)
file(COPY ${rockspecs} ${files} ${LUA_DIR}/examples DESTINATION ${src})
get_filename_component(rockspec ${rockspecs} NAME)

set(env
    ${CMAKE_COMMAND}
    -E
    env
    PKG_CONFIG_PATH=${PREFIX}/${LIBDIR}/pkgconfig
    --unset=LUA_PATH
    --unset=LUA_CPATH
    HOME=${WORK}/home)
llm_run(
  ${env}
  ${LUAROCKS}
  --lua-version=5.4
  --tree=${tree}
  make
  --deps-mode=none
  ${rockspec}
  WORKING_DIRECTORY
  ${src})

set(run_env LLM_SHARED_DIR=${SHARED_DIR} LUA_PATH=${tree}/share/lua/5.4/?.lua
            LUA_CPATH=${tree}/lib/lua/5.4/?.so)
# The example runs from a folder without the sources: only the rock counts.
file(MAKE_DIRECTORY ${WORK}/run)
llm_run(
  ${CMAKE_COMMAND}
  -E
  env
  ${run_env}
  ${LUA}
  ${src}/examples/story.lua
  WORKING_DIRECTORY
  ${WORK}/run
  OUTPUT
  out)
if(NOT out MATCHES "${STORY_REGEX}")
  message(FATAL_ERROR "lua5.4 story from the rock: unexpected output\n${out}")
endif()
message(STATUS "lua5.4 + rock: ${out}")

if(LUAJIT)
  llm_run(
    ${CMAKE_COMMAND}
    -E
    env
    ${run_env}
    LD_LIBRARY_PATH=${PREFIX}/${LIBDIR}
    --unset=LLM_LIBRARY
    ${LUAJIT}
    ${src}/examples/story.lua
    WORKING_DIRECTORY
    ${WORK}/run
    OUTPUT
    out)
  if(NOT out MATCHES "${STORY_REGEX}")
    message(FATAL_ERROR "luajit story from the rock: unexpected output\n${out}")
  endif()
  message(STATUS "luajit + rock (libllm.so.1 by SONAME): ${out}")
endif()
