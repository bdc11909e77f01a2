# Uses the Go binding the way a user does: a module outside the repository
# requires libllm.dev/llm (a replace directive points at bindings/go, since
# GOPROXY=off), cgo finds the libllm installed in PREFIX by pkg-config, and
# the story example builds and runs.
#   cmake -DGO=go -DGO_DIR=bindings/go -DWORK=dir -DPREFIX=prefix -DLIBDIR=lib
#         -DSHARED_DIR=dir -DSTORY_REGEX=re -P go_module.cmake
include(${CMAKE_CURRENT_LIST_DIR}/../../tests/packaging/common.cmake)

set(module ${WORK}/consumer)
file(REMOVE_RECURSE ${module})
file(MAKE_DIRECTORY ${module})
file(COPY ${GO_DIR}/examples/story/main.go DESTINATION ${module})
file(
  WRITE ${module}/go.mod
  "module example.com/consumer\n\ngo 1.19\n\nrequire libllm.dev/llm v1.5.0\n\nreplace libllm.dev/llm => ${GO_DIR}\n"
)

set(env
    ${CMAKE_COMMAND}
    -E
    env
    GOFLAGS=-mod=mod
    GOPROXY=off
    GOTOOLCHAIN=local
    GOCACHE=${WORK}/cache
    GOPATH=${WORK}/path
    PKG_CONFIG_PATH=${PREFIX}/${LIBDIR}/pkgconfig
    --unset=CGO_LDFLAGS
    --unset=CGO_CFLAGS)
llm_run(
  ${env}
  ${GO}
  build
  -o
  ${WORK}/story
  .
  WORKING_DIRECTORY
  ${module})
llm_run(
  ${CMAKE_COMMAND}
  -E
  env
  LD_LIBRARY_PATH=${PREFIX}/${LIBDIR}
  LLM_SHARED_DIR=${SHARED_DIR}
  ${WORK}/story
  -n
  60
  WORKING_DIRECTORY
  ${WORK}
  OUTPUT
  out)
if(NOT out MATCHES "${STORY_REGEX}")
  message(FATAL_ERROR "Go story from the installed module: unexpected output\n${out}")
endif()
message(STATUS "go module + pkg-config: ${out}")
