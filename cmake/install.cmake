# Install rules and package metadata for libllm:
#   include/llm.h
#   lib/libllm.so.X.Y.Z, libllm.so.X (SONAME), libllm.so     (or libllm.a when static)
#   bin/llm.dll + lib/libllm.dll.a (or llm.lib)               on Windows
#   bin/llm-run, bin/llm-tokenize, ...                        the CLI tools
#   lib/cmake/llm/llmConfig.cmake, llmConfigVersion.cmake, llmTargets*.cmake
#   lib/pkgconfig/llm.pc
# Everything is relative to the prefix, so an installed tree can be moved.
include(CMakePackageConfigHelpers)

set(LLM_CMAKE_PACKAGE_DIR
    ${CMAKE_INSTALL_LIBDIR}/cmake/llm
    CACHE STRING "Where the CMake package files are installed, relative to the prefix")
mark_as_advanced(LLM_CMAKE_PACKAGE_DIR)

# Windows: "llm.dll" as the C ABI promises, not MinGW's default "libllm.dll".
if(WIN32)
  set_target_properties(llm PROPERTIES PREFIX "")
endif()

# A static libllm brings C++ into programs that may be pure C: its link
# interface carries the C++ runtime (what the C++ compiler links beyond the C
# compiler: stdc++ and m with GCC) and threads.
set(LLM_CXX_RUNTIME_LIBS ${CMAKE_CXX_IMPLICIT_LINK_LIBRARIES})
if(CMAKE_C_IMPLICIT_LINK_LIBRARIES)
  list(REMOVE_ITEM LLM_CXX_RUNTIME_LIBS ${CMAKE_C_IMPLICIT_LINK_LIBRARIES})
endif()
if(NOT BUILD_SHARED_LIBS)
  target_link_libraries(llm INTERFACE ${LLM_CXX_RUNTIME_LIBS})
endif()

# The command-line tools (every program of tools/), for the install checks too.
set(LLM_TOOL_TARGETS "")
if(LLM_BUILD_TOOLS)
  get_property(
    _llm_tools
    DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/tools
    PROPERTY BUILDSYSTEM_TARGETS)
  foreach(_tool IN LISTS _llm_tools)
    get_target_property(_type ${_tool} TYPE)
    if(_type STREQUAL "EXECUTABLE")
      list(APPEND LLM_TOOL_TARGETS ${_tool})
    endif()
  endforeach()
endif()

# Installed tools find libllm beside them, wherever the prefix goes.
if(UNIX AND NOT APPLE)
  file(RELATIVE_PATH _llm_bin_to_lib "/${CMAKE_INSTALL_BINDIR}" "/${CMAKE_INSTALL_LIBDIR}")
  foreach(_tool IN LISTS LLM_TOOL_TARGETS)
    set_target_properties(${_tool} PROPERTIES INSTALL_RPATH "$ORIGIN/${_llm_bin_to_lib}")
  endforeach()
endif()

install(
  TARGETS llm
  EXPORT llmTargets
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${CMAKE_CURRENT_SOURCE_DIR}/include/llm.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# ---- CMake package: find_package(llm 1 CONFIG) -> llm::llm -------------------
install(
  EXPORT llmTargets
  NAMESPACE llm::
  DESTINATION ${LLM_CMAKE_PACKAGE_DIR})
set(LLM_PACKAGE_SHARED ${BUILD_SHARED_LIBS})
configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/llmConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/llmConfig.cmake
  INSTALL_DESTINATION ${LLM_CMAKE_PACKAGE_DIR})
# A program built against major N needs a libllm of major N (the SONAME).
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/llmConfigVersion.cmake
                                 COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/llmConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/llmConfigVersion.cmake
        DESTINATION ${LLM_CMAKE_PACKAGE_DIR})

# ---- pkg-config: llm.pc ------------------------------------------------------
# prefix is found from the .pc file's own place (pkgconf's ${pcfiledir}), so
# the tree stays relocatable; absolute install dirs are written as they are.
function(llm_pc_dir var dir)
  if(IS_ABSOLUTE "${dir}")
    set(${var}
        "${dir}"
        PARENT_SCOPE)
  else()
    set(${var}
        "\${prefix}/${dir}"
        PARENT_SCOPE)
  endif()
endfunction()
file(RELATIVE_PATH LLM_PC_PREFIX_FROM_PCFILEDIR "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" LLM_PC_PREFIX_FROM_PCFILEDIR "${LLM_PC_PREFIX_FROM_PCFILEDIR}")
llm_pc_dir(LLM_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
llm_pc_dir(LLM_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
set(LLM_PC_LIBS_PRIVATE "")
foreach(_lib IN LISTS LLM_CXX_RUNTIME_LIBS)
  string(APPEND LLM_PC_LIBS_PRIVATE " -l${_lib}")
endforeach()
if(CMAKE_USE_PTHREADS_INIT)
  # glibc >= 2.34 has threads in libc (an empty libpthread remains); older
  # systems and other libcs need the library.
  string(APPEND LLM_PC_LIBS_PRIVATE " -lpthread")
endif()
string(STRIP "${LLM_PC_LIBS_PRIVATE}" LLM_PC_LIBS_PRIVATE)
# llm.h declares dllimport/visibility unless told the library is static.
if(BUILD_SHARED_LIBS)
  set(LLM_PC_CFLAGS "")
else()
  set(LLM_PC_CFLAGS " -DLLM_STATIC")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/llm.pc.in ${CMAKE_CURRENT_BINARY_DIR}/llm.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/llm.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
