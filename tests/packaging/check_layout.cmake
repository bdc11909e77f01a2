# Checks an installed (and moved) libllm prefix: files, library links, the
# CMake package's version rules, llm.pc, and that the installed tools run.
#   cmake -DPREFIX= -DSOURCE_DIR= -DVERSION= -DSHARED=ON|OFF -DLIBDIR=lib
#         -DINCLUDEDIR=include -DBINDIR=bin -DPACKAGE_DIR=lib/cmake/llm
#         -DTOOLS=<names> -DPKG_CONFIG= -DMODEL= -DTOKENIZER= -DGOLDEN=
#         -P check_layout.cmake
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

set(problems "")
function(link_target path out)
  file(READ_SYMLINK ${path} target)
  set(${out}
      "${target}"
      PARENT_SCOPE)
endfunction()

string(REGEX MATCH "^[0-9]+" major ${VERSION})
set(lib ${PREFIX}/${LIBDIR})

# ---- header and library files -------------------------------------------------
file(SHA256 ${SOURCE_DIR}/include/llm.h source_header)
if(EXISTS ${PREFIX}/${INCLUDEDIR}/llm.h)
  file(SHA256 ${PREFIX}/${INCLUDEDIR}/llm.h installed_header)
endif()
llm_expect("${INCLUDEDIR}/llm.h is missing or differs from include/llm.h" installed_header STREQUAL
           source_header)
file(
  GLOB headers
  RELATIVE ${PREFIX}/${INCLUDEDIR}
  ${PREFIX}/${INCLUDEDIR}/*)
llm_expect("llm.h must be the only public header; found: ${headers}" headers STREQUAL "llm.h")

if(SHARED)
  llm_expect(
    "${LIBDIR}/libllm.so.${VERSION} is missing"
    EXISTS
    ${lib}/libllm.so.${VERSION}
    AND
    NOT
    IS_SYMLINK
    ${lib}/libllm.so.${VERSION})
  if(IS_SYMLINK ${lib}/libllm.so.${major})
    link_target(${lib}/libllm.so.${major} soname_target)
  endif()
  llm_expect("${LIBDIR}/libllm.so.${major} must link to libllm.so.${VERSION}" soname_target
             STREQUAL "libllm.so.${VERSION}")
  if(IS_SYMLINK ${lib}/libllm.so)
    link_target(${lib}/libllm.so dev_target)
  endif()
  llm_expect("${LIBDIR}/libllm.so must link to libllm.so.${major}" dev_target STREQUAL
             "libllm.so.${major}")
  llm_expect("a shared build installed libllm.a" NOT EXISTS ${lib}/libllm.a)
else()
  llm_expect("${LIBDIR}/libllm.a is missing" EXISTS ${lib}/libllm.a)
  file(GLOB shared_objects ${lib}/libllm.so*)
  llm_expect("a static build installed ${shared_objects}" NOT shared_objects)
endif()

# ---- CMake package -------------------------------------------------------------
foreach(f llmConfig.cmake llmConfigVersion.cmake llmTargets.cmake)
  llm_expect("${PACKAGE_DIR}/${f} is missing" EXISTS ${PREFIX}/${PACKAGE_DIR}/${f})
endforeach()
# SameMajorVersion: any 1.x request accepts 1.y.z with y.z >= x, no other major.
function(version_check wanted out)
  set(PACKAGE_FIND_VERSION ${wanted})
  string(REPLACE "." ";" parts ${wanted})
  list(GET parts 0 PACKAGE_FIND_VERSION_MAJOR)
  set(PACKAGE_FIND_VERSION_COUNT 2)
  include(${PREFIX}/${PACKAGE_DIR}/llmConfigVersion.cmake)
  set(${out}
      "${PACKAGE_VERSION_COMPATIBLE}"
      PARENT_SCOPE)
endfunction()
if(EXISTS ${PREFIX}/${PACKAGE_DIR}/llmConfigVersion.cmake)
  math(EXPR next_major "${major} + 1")
  math(EXPR previous_major "${major} - 1")
  version_check(${major}.0 same_major)
  version_check(${next_major}.0 next)
  version_check(${previous_major}.0 previous)
  llm_expect("llmConfigVersion.cmake rejects a request for ${major}.0" same_major)
  llm_expect("llmConfigVersion.cmake accepts a request for ${next_major}.0" NOT next)
  llm_expect("llmConfigVersion.cmake accepts a request for ${previous_major}.0" NOT previous)
endif()

# ---- pkg-config ----------------------------------------------------------------
set(ENV{PKG_CONFIG_PATH} ${lib}/pkgconfig)
unset(ENV{PKG_CONFIG_LIBDIR})
function(pkg_config out)
  execute_process(
    COMMAND ${PKG_CONFIG} ${ARGN} llm
    OUTPUT_VARIABLE value
    OUTPUT_STRIP_TRAILING_WHITESPACE RESULTS_VARIABLE rc)
  set(${out}
      "${value}"
      PARENT_SCOPE)
endfunction()
pkg_config(modversion --modversion)
llm_expect("pkg-config --modversion llm gives '${modversion}'" modversion STREQUAL VERSION)
# The moved tree must be found where it is now.
pkg_config(includedir --variable=includedir)
get_filename_component(includedir "${includedir}" REALPATH)
get_filename_component(real_include "${PREFIX}/${INCLUDEDIR}" REALPATH)
llm_expect("llm.pc's includedir '${includedir}' is not the moved prefix's ${real_include}"
           includedir STREQUAL real_include)
pkg_config(cflags --cflags)
pkg_config(static_libs --static --libs)
if(SHARED)
  llm_expect("shared llm.pc must not define LLM_STATIC: ${cflags}" NOT cflags MATCHES LLM_STATIC)
else()
  llm_expect("static llm.pc must define LLM_STATIC: ${cflags}" cflags MATCHES "-DLLM_STATIC")
endif()
llm_expect(
  "pkg-config --static --libs llm lacks -lllm or the C++ runtime: ${static_libs}"
  static_libs
  MATCHES
  "-lllm"
  AND
  static_libs
  MATCHES
  "-lstdc[+][+]")

# ---- tools ---------------------------------------------------------------------
foreach(tool IN LISTS TOOLS)
  llm_expect("${BINDIR}/${tool} is missing" EXISTS ${PREFIX}/${BINDIR}/${tool})
endforeach()

llm_report_problems("The installed tree ${PREFIX} is wrong")

# llm-run from the moved prefix, with no library path set: it must find its
# libllm by itself and reproduce llama2.c's run.c byte for byte.
if("llm-run" IN_LIST TOOLS)
  unset(ENV{LD_LIBRARY_PATH})
  llm_golden_prompt(${GOLDEN} prompt)
  llm_run(
    ${PREFIX}/${BINDIR}/llm-run
    ${MODEL}
    -z
    ${TOKENIZER}
    -t
    0
    -n
    256
    -i
    ${prompt}
    OUTPUT
    out)
  file(READ ${GOLDEN} json)
  string(JSON golden GET "${json}" text)
  if(NOT out STREQUAL golden)
    message(FATAL_ERROR "installed llm-run printed\n${out}\ninstead of\n${golden}")
  endif()
  message(STATUS "installed llm-run reproduces ${GOLDEN}")
endif()
message(STATUS "${PREFIX} is complete")
