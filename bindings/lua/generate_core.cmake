# Runs SWIG for the Lua 5.4 module llm_core into OUT_DIR. With -DCHECK=ON,
# compares the result with the committed bindings/lua/llm_core_wrap.c (the
# rockspec builds that file, so users need no SWIG).
#   cmake -DSWIG_EXECUTABLE=swig -DLUA_DIR=bindings/lua -DOUT_DIR=dir [-DCHECK=ON] -P generate_core.cmake
# SWIG runs in LUA_DIR with relative paths: the output names its source.
file(MAKE_DIRECTORY ${OUT_DIR})
execute_process(
  COMMAND ${SWIG_EXECUTABLE} -lua -module llm_core -I../../include -o ${OUT_DIR}/llm_core_wrap.c
          ../swig/llm.i
  WORKING_DIRECTORY ${LUA_DIR}
  RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "swig failed")
endif()
if(CHECK)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT_DIR}/llm_core_wrap.c
                          ${LUA_DIR}/llm_core_wrap.c RESULT_VARIABLE differs)
  if(differs)
    message(FATAL_ERROR "bindings/lua/llm_core_wrap.c differs from what ${SWIG_EXECUTABLE} "
                        "generates now: rebuild it with the llm_lua_generate_core target")
  endif()
  message(STATUS "bindings/lua/llm_core_wrap.c matches the SWIG output")
endif()
