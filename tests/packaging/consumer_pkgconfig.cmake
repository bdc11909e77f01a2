# Builds tests/consumer/consumer.c with nothing but a C compiler and
# `pkg-config --cflags --libs llm` (--static for a static libllm) against an
# installed prefix, then runs it on the golden story.
#   cmake -DSOURCE=consumer.c -DWORK=<dir> -DPREFIX=<prefix> -DLIBDIR=lib
#         -DSTATIC=ON|OFF -DCC=<compiler> [-DC_FLAGS=<list>] -DPKG_CONFIG=
#         -DOBJDUMP= -DGOLDEN= -DMODEL= -DTOKENIZER= -P consumer_pkgconfig.cmake
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(ENV{PKG_CONFIG_PATH} ${PREFIX}/${LIBDIR}/pkgconfig)
set(static "")
if(STATIC)
  set(static --static)
endif()
llm_run(${PKG_CONFIG} ${static} --cflags llm OUTPUT cflags)
llm_run(${PKG_CONFIG} ${static} --libs llm OUTPUT libs)
separate_arguments(cflags UNIX_COMMAND "${cflags}")
separate_arguments(libs UNIX_COMMAND "${libs}")
llm_run(
  ${CC}
  ${C_FLAGS}
  ${cflags}
  ${SOURCE}
  -o
  ${WORK}/llm-consumer
  ${libs})

# A static consumer carries the engine: it must not need libllm.so at all.
execute_process(COMMAND ${OBJDUMP} -p ${WORK}/llm-consumer OUTPUT_VARIABLE dynamic)
string(REGEX MATCHALL "NEEDED +[^\n]+" needed "${dynamic}")
if(STATIC AND needed MATCHES "libllm")
  message(FATAL_ERROR "a static link still needs libllm: ${needed}")
elseif(NOT STATIC AND NOT needed MATCHES "libllm[.]so[.][0-9]+")
  message(FATAL_ERROR "a shared link does not need libllm.so.<major>: ${needed}")
endif()

set(ENV{LD_LIBRARY_PATH} ${PREFIX}/${LIBDIR})
llm_check_consumer_story(${WORK} ${WORK}/llm-consumer)
