# Installs a libllm build into <WORK>/prefix the way a packager does: install
# into a staging folder, then move the tree (it must not depend on where it
# was installed).
#   cmake -DBUILD_DIR=<build> -DWORK=<dir> [-DCONFIG=Release] -P install_prefix.cmake
# With -DSOURCE_DIR=<src> and -DCONFIGURE_ARGS=<list> the build is first
# configured and built in <WORK>/build (the other library flavour).
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

if(SOURCE_DIR)
  set(BUILD_DIR ${WORK}/build)
  llm_run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${BUILD_DIR} ${CONFIGURE_ARGS})
  llm_run(
    ${CMAKE_COMMAND}
    --build
    ${BUILD_DIR}
    --config
    ${CONFIG}
    --parallel
    2)
endif()

file(REMOVE_RECURSE ${WORK}/staging ${WORK}/prefix)
llm_run(
  ${CMAKE_COMMAND}
  --install
  ${BUILD_DIR}
  --config
  ${CONFIG}
  --prefix
  ${WORK}/staging)
file(RENAME ${WORK}/staging ${WORK}/prefix)
message(STATUS "installed into ${WORK}/staging, moved to ${WORK}/prefix")
