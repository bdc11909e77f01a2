# Runs SWIG for the Go binding into OUT_DIR. With -DCHECK=ON, compares the
# result with the committed bindings/go/internal/capi files.
#   cmake -DSWIG_EXECUTABLE=swig -DGO_DIR=bindings/go -DOUT_DIR=dir [-DCHECK=ON] -P generate_capi.cmake
# SWIG runs in GO_DIR with relative paths: the output names its source.
file(MAKE_DIRECTORY ${OUT_DIR})
execute_process(
  COMMAND ${SWIG_EXECUTABLE} -go -cgo -intgosize 64 -module capi -I../../include -outdir ${OUT_DIR}
          -o ${OUT_DIR}/llm_wrap.c ../swig/llm.i
  WORKING_DIRECTORY ${GO_DIR}
  RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "swig failed")
endif()
if(CHECK)
  foreach(file capi.go llm_wrap.c)
    execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT_DIR}/${file}
                            ${GO_DIR}/internal/capi/${file} RESULT_VARIABLE differs)
    if(differs)
      message(FATAL_ERROR "bindings/go/internal/capi/${file} differs from what ${SWIG_EXECUTABLE} "
                          "generates now: rebuild it with the llm_go_generate target")
    endif()
  endforeach()
  message(STATUS "bindings/go/internal/capi matches the SWIG output")
endif()
