# Runs packaging/vcpkg/portfile.cmake without vcpkg: stand-ins of the vcpkg_*
# helpers check their arguments, and act on a real installed prefix instead of
# a build (vcpkg_cmake_install copies <PREFIX> into the package tree). The
# resulting tree must have vcpkg's layout.
#   cmake -DSOURCE_DIR= -DPREFIX=<installed prefix> -DWORK= -DLINKAGE=dynamic|static
#         -DGENERATOR= -DFEATURES=core[;tools] -P vcpkg_port.cmake
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

set(PORT_DIR ${SOURCE_DIR}/packaging/vcpkg)
file(READ ${PORT_DIR}/vcpkg.json manifest)
string(JSON PORT GET "${manifest}" name)
string(JSON VERSION GET "${manifest}" version)
set(VCPKG_LIBRARY_LINKAGE ${LINKAGE})
set(VCPKG_TARGET_IS_WINDOWS OFF)
set(VCPKG_TARGET_IS_LINUX ON)
set(CURRENT_PACKAGES_DIR ${WORK}/packages/${PORT}_x64-linux)
set(CURRENT_BUILDTREES_DIR ${WORK}/buildtrees/${PORT})
file(REMOVE_RECURSE ${WORK})
unset(ENV{LLM_SOURCE_DIR})

function(fail)
  message(FATAL_ERROR "portfile.cmake: " ${ARGN})
endfunction()
# The vcpkg_* calls made so far, in order.
function(record call)
  set_property(GLOBAL APPEND PROPERTY LLM_VCPKG_CALLS ${call})
endfunction()
function(expect_called call before)
  get_property(calls GLOBAL PROPERTY LLM_VCPKG_CALLS)
  if(NOT call IN_LIST calls)
    fail("${before} before ${call}")
  endif()
endfunction()

# The CMake options a port passes must exist in libllm's CMake files.
file(GLOB cmake_files ${SOURCE_DIR}/CMakeLists.txt ${SOURCE_DIR}/cmake/*.cmake
     ${SOURCE_DIR}/*/CMakeLists.txt ${SOURCE_DIR}/*/*/CMakeLists.txt)
list(FILTER cmake_files EXCLUDE REGEX "^${SOURCE_DIR}/build")
set(declared BUILD_SHARED_LIBS)
foreach(f IN LISTS cmake_files)
  file(STRINGS ${f} lines REGEX "option\\(")
  foreach(line IN LISTS lines)
    if(line MATCHES "option\\(([A-Za-z0-9_]+)")
      list(APPEND declared ${CMAKE_MATCH_1})
    endif()
  endforeach()
endforeach()
function(check_options)
  foreach(opt IN LISTS ARGN)
    if(opt MATCHES "^-D([A-Za-z0-9_]+)(:[A-Z]+)?=" AND NOT CMAKE_MATCH_1 IN_LIST declared)
      fail("${opt}: libllm has no option ${CMAKE_MATCH_1}")
    endif()
  endforeach()
endfunction()

function(vcpkg_from_github)
  cmake_parse_arguments(arg "" "OUT_SOURCE_PATH;REPO;REF;SHA512;HEAD_REF" "PATCHES" ${ARGN})
  foreach(key OUT_SOURCE_PATH REPO REF SHA512 HEAD_REF)
    if(NOT DEFINED arg_${key})
      fail("vcpkg_from_github without ${key}")
    endif()
  endforeach()
  if(NOT arg_REF MATCHES "${VERSION}")
    fail("vcpkg_from_github REF ${arg_REF} does not follow the port version ${VERSION}")
  endif()
  set(${arg_OUT_SOURCE_PATH}
      ${SOURCE_DIR}
      PARENT_SCOPE)
  record(vcpkg_from_github)
endfunction()

function(vcpkg_check_features)
  cmake_parse_arguments(arg "" "OUT_FEATURE_OPTIONS" "FEATURES;INVERTED_FEATURES" ${ARGN})
  set(options "")
  while(arg_FEATURES)
    list(POP_FRONT arg_FEATURES feature option)
    string(
      JSON
      description
      ERROR_VARIABLE
      missing
      GET
      "${manifest}"
      features
      ${feature})
    if(missing)
      fail("feature '${feature}' is not declared in vcpkg.json")
    endif()
    if(feature IN_LIST FEATURES)
      list(APPEND options -D${option}=ON)
    else()
      list(APPEND options -D${option}=OFF)
    endif()
  endwhile()
  check_options(${options})
  set(${arg_OUT_FEATURE_OPTIONS}
      ${options}
      PARENT_SCOPE)
  record(vcpkg_check_features)
endfunction()

# Configures for real (release), as vcpkg would, to prove the options work.
function(vcpkg_cmake_configure)
  cmake_parse_arguments(arg "" "SOURCE_PATH" "OPTIONS;OPTIONS_RELEASE;OPTIONS_DEBUG" ${ARGN})
  if(NOT EXISTS ${arg_SOURCE_PATH}/CMakeLists.txt)
    fail("vcpkg_cmake_configure: no CMakeLists.txt in '${arg_SOURCE_PATH}'")
  endif()
  check_options(${arg_OPTIONS} ${arg_OPTIONS_RELEASE} ${arg_OPTIONS_DEBUG})
  set(shared OFF)
  if(VCPKG_LIBRARY_LINKAGE STREQUAL "dynamic")
    set(shared ON)
  endif()
  llm_run(
    ${CMAKE_COMMAND}
    -S
    ${arg_SOURCE_PATH}
    -B
    ${CURRENT_BUILDTREES_DIR}/x64-linux-rel
    -G
    ${GENERATOR}
    -DCMAKE_BUILD_TYPE=Release
    -DBUILD_SHARED_LIBS=${shared}
    ${arg_OPTIONS}
    ${arg_OPTIONS_RELEASE})
  record(vcpkg_cmake_configure)
endfunction()

function(vcpkg_cmake_install)
  expect_called(vcpkg_cmake_configure vcpkg_cmake_install)
  file(COPY ${PREFIX}/ DESTINATION ${CURRENT_PACKAGES_DIR})
  file(COPY ${PREFIX}/ DESTINATION ${CURRENT_PACKAGES_DIR}/debug)
  record(vcpkg_cmake_install)
endfunction()

function(vcpkg_cmake_config_fixup)
  cmake_parse_arguments(arg "" "PACKAGE_NAME;CONFIG_PATH" "" ${ARGN})
  expect_called(vcpkg_cmake_install vcpkg_cmake_config_fixup)
  set(config ${CURRENT_PACKAGES_DIR}/${arg_CONFIG_PATH}/${arg_PACKAGE_NAME}Config.cmake)
  if(NOT EXISTS ${config})
    fail("vcpkg_cmake_config_fixup: the install has no ${arg_CONFIG_PATH}/"
         "${arg_PACKAGE_NAME}Config.cmake for find_package(${arg_PACKAGE_NAME})")
  endif()
  file(MAKE_DIRECTORY ${CURRENT_PACKAGES_DIR}/share)
  file(RENAME ${CURRENT_PACKAGES_DIR}/${arg_CONFIG_PATH}
       ${CURRENT_PACKAGES_DIR}/share/${arg_PACKAGE_NAME})
  file(REMOVE_RECURSE ${CURRENT_PACKAGES_DIR}/debug/${arg_CONFIG_PATH})
  foreach(root ${CURRENT_PACKAGES_DIR} ${CURRENT_PACKAGES_DIR}/debug)
    file(GLOB left ${root}/lib/cmake/*)
    if(NOT left)
      file(REMOVE_RECURSE ${root}/lib/cmake)
    endif()
  endforeach()
  record(vcpkg_cmake_config_fixup)
endfunction()

function(vcpkg_fixup_pkgconfig)
  expect_called(vcpkg_cmake_install vcpkg_fixup_pkgconfig)
  file(GLOB pcs ${CURRENT_PACKAGES_DIR}/lib/pkgconfig/*.pc)
  if(NOT pcs)
    fail("vcpkg_fixup_pkgconfig: the install has no lib/pkgconfig/*.pc")
  endif()
  foreach(pc IN LISTS pcs)
    file(STRINGS ${pc} lines REGEX "^(Libs|Cflags)")
    if(lines MATCHES "${PREFIX}|${SOURCE_DIR}")
      fail("${pc} contains absolute paths: ${lines}")
    endif()
  endforeach()
  record(vcpkg_fixup_pkgconfig)
endfunction()

function(vcpkg_copy_tools)
  cmake_parse_arguments(arg "AUTO_CLEAN" "" "TOOL_NAMES" ${ARGN})
  if(NOT arg_TOOL_NAMES)
    fail("vcpkg_copy_tools without TOOL_NAMES")
  endif()
  foreach(tool IN LISTS arg_TOOL_NAMES)
    if(NOT tool OR NOT EXISTS ${CURRENT_PACKAGES_DIR}/bin/${tool})
      fail("vcpkg_copy_tools: the install has no bin/${tool}")
    endif()
    file(COPY ${CURRENT_PACKAGES_DIR}/bin/${tool} DESTINATION ${CURRENT_PACKAGES_DIR}/tools/${PORT})
    if(arg_AUTO_CLEAN)
      file(REMOVE ${CURRENT_PACKAGES_DIR}/bin/${tool} ${CURRENT_PACKAGES_DIR}/debug/bin/${tool})
    endif()
  endforeach()
  foreach(root ${CURRENT_PACKAGES_DIR} ${CURRENT_PACKAGES_DIR}/debug)
    file(GLOB left ${root}/bin/*)
    if(arg_AUTO_CLEAN AND NOT left)
      file(REMOVE_RECURSE ${root}/bin)
    endif()
  endforeach()
  record(vcpkg_copy_tools)
endfunction()

function(vcpkg_replace_string file match replace)
  file(READ ${file} text)
  string(REPLACE "${match}" "${replace}" changed "${text}")
  if(changed STREQUAL text)
    fail("vcpkg_replace_string: '${match}' is not in ${file}")
  endif()
  file(WRITE ${file} "${changed}")
  record(vcpkg_replace_string)
endfunction()

function(vcpkg_install_copyright)
  cmake_parse_arguments(arg "" "" "FILE_LIST" ${ARGN})
  set(text "")
  foreach(f IN LISTS arg_FILE_LIST)
    if(NOT EXISTS ${f})
      fail("vcpkg_install_copyright: ${f} does not exist")
    endif()
    file(READ ${f} part)
    string(APPEND text "${part}")
  endforeach()
  file(WRITE ${CURRENT_PACKAGES_DIR}/share/${PORT}/copyright "${text}")
  record(vcpkg_install_copyright)
endfunction()

include(${PORT_DIR}/portfile.cmake)

# ---- the package tree vcpkg would accept -----------------------------------------
get_property(calls GLOBAL PROPERTY LLM_VCPKG_CALLS)
set(problems "")
set(expected_calls
    vcpkg_from_github
    vcpkg_check_features
    vcpkg_cmake_configure
    vcpkg_cmake_install
    vcpkg_cmake_config_fixup
    vcpkg_fixup_pkgconfig
    vcpkg_install_copyright)
if("tools" IN_LIST FEATURES)
  list(APPEND expected_calls vcpkg_copy_tools)
endif()
foreach(call IN LISTS expected_calls)
  llm_expect("${call} was not called" call IN_LIST calls)
endforeach()
set(pkg ${CURRENT_PACKAGES_DIR})
llm_expect("no include/llm.h" EXISTS ${pkg}/include/llm.h)
llm_expect("debug/include must be removed" NOT EXISTS ${pkg}/debug/include)
llm_expect("debug/share must be removed" NOT EXISTS ${pkg}/debug/share)
llm_expect("lib/cmake must be moved to share/" NOT EXISTS ${pkg}/lib/cmake)
llm_expect("no share/llm/llmConfig.cmake" EXISTS ${pkg}/share/llm/llmConfig.cmake)
llm_expect("no share/llm/llmConfigVersion.cmake" EXISTS ${pkg}/share/llm/llmConfigVersion.cmake)
llm_expect("no share/${PORT}/usage" EXISTS ${pkg}/share/${PORT}/usage)
llm_expect("no share/${PORT}/copyright" EXISTS ${pkg}/share/${PORT}/copyright)
llm_expect("no lib/pkgconfig/llm.pc" EXISTS ${pkg}/lib/pkgconfig/llm.pc)
llm_expect("no debug/lib/pkgconfig/llm.pc" EXISTS ${pkg}/debug/lib/pkgconfig/llm.pc)
if("tools" IN_LIST FEATURES)
  llm_expect("tools must live in tools/${PORT}" EXISTS ${pkg}/tools/${PORT}/llm-run)
endif()
# vcpkg rejects programs in bin/: every installed tool must be in vcpkg_copy_tools.
file(GLOB left_in_bin ${pkg}/bin/* ${pkg}/debug/bin/*)
llm_expect("programs left in bin/ (add them to vcpkg_copy_tools): ${left_in_bin}" NOT left_in_bin)
file(READ ${pkg}/include/llm.h header)
if(LINKAGE STREQUAL "static")
  llm_expect("no libllm.a" EXISTS ${pkg}/lib/libllm.a AND EXISTS ${pkg}/debug/lib/libllm.a)
  llm_expect("a static llm.h must not use dllimport" header MATCHES "#if 1 /[*] static libllm [*]/")
else()
  llm_expect("no libllm.so" EXISTS ${pkg}/lib/libllm.so AND EXISTS ${pkg}/debug/lib/libllm.so)
  llm_expect("a shared llm.h must stay untouched" NOT header MATCHES "static libllm")
endif()
file(READ ${pkg}/share/${PORT}/usage usage)
llm_expect("usage does not show find_package(llm CONFIG REQUIRED)" usage MATCHES
           "find_package[(]llm CONFIG REQUIRED[)]")
llm_expect("usage does not show llm::llm" usage MATCHES "llm::llm")
llm_report_problems("The vcpkg port makes a wrong package tree (${pkg})")
list(JOIN calls ", " shown)
message(STATUS "portfile.cmake (${LINKAGE}) called ${shown}; package tree ok")
