# Builds the release tarball with cpack (cmake/cpack.cmake) and checks its
# file list: header, library and its links, CMake package, llm.pc, tools.
#   cmake -DCPACK=cpack -DBUILD_DIR=build -DWORK=dir -DNAME=libllm-1.5.0-linux-x86_64
#         -DVERSION=1.5.0 -DLIBDIR=lib -DSHARED=ON "-DTOOLS=llm-run;..." [-DSTATIC_LIBRARY=path]
#         -P release_tarball.cmake
include(${CMAKE_CURRENT_LIST_DIR}/../../tests/packaging/common.cmake)

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
llm_run(
  ${CPACK}
  -G
  TGZ
  --config
  ${BUILD_DIR}/CPackConfig.cmake
  -B
  ${WORK}
  WORKING_DIRECTORY
  ${WORK})
set(tarball ${WORK}/${NAME}.tar.gz)
if(NOT EXISTS ${tarball})
  message(FATAL_ERROR "cpack did not write ${tarball}")
endif()
llm_run(
  ${CMAKE_COMMAND}
  -E
  tar
  tf
  ${tarball}
  WORKING_DIRECTORY
  ${WORK}
  OUTPUT
  listing)
string(REPLACE "\n" ";" entries "${listing}")

string(REGEX MATCH "^[0-9]+" major "${VERSION}")
set(expected include/llm.h ${LIBDIR}/pkgconfig/llm.pc ${LIBDIR}/cmake/llm/llmConfig.cmake
             ${LIBDIR}/cmake/llm/llmConfigVersion.cmake ${LIBDIR}/cmake/llm/llmTargets.cmake)
if(SHARED)
  list(APPEND expected ${LIBDIR}/libllm.so ${LIBDIR}/libllm.so.${major}
       ${LIBDIR}/libllm.so.${VERSION})
else()
  list(APPEND expected ${LIBDIR}/libllm.a)
endif()
if(STATIC_LIBRARY)
  list(APPEND expected ${LIBDIR}/libllm.a)
endif()
foreach(tool IN LISTS TOOLS)
  list(APPEND expected bin/${tool})
endforeach()

set(missing "")
foreach(file IN LISTS expected)
  list(FIND entries "${NAME}/${file}" found)
  if(found EQUAL -1)
    list(APPEND missing ${file})
  endif()
endforeach()
if(missing)
  message(FATAL_ERROR "${NAME}.tar.gz lacks: ${missing}\nIt holds:\n${listing}")
endif()
foreach(entry IN LISTS entries)
  if(entry AND NOT entry MATCHES "^${NAME}/")
    message(FATAL_ERROR "${entry} is outside the tarball's top folder ${NAME}/")
  endif()
endforeach()
message(STATUS "${NAME}.tar.gz holds everything expected:\n${listing}")
