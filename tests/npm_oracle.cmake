# Shared by the npm oracle fixtures (tests/*_oracle/setup.cmake, run with
# cmake -P): checks the variables a fixture needs, copies its package files and
# scripts into WORK_DIR and installs the pinned npm packages there, again only
# when package-lock.json changed, less the files the oracles never read. Fails,
# never skips, when node or npm is missing or the registry cannot be reached.

# llm_npm_oracle_install(<name> VARS <var>... FILES <file>... [NPM_INSTALL])
# <name> prefixes messages ("gguf oracle"). VARS must be set (NODE, NPM,
# SRC_DIR and WORK_DIR always are checked). FILES are copied from SRC_DIR.
# NPM_INSTALL runs `npm install` instead of `npm ci` (for packages whose
# optional per-platform dependencies are not all in the lock file).
function(llm_npm_oracle_install name)
  cmake_parse_arguments(arg "NPM_INSTALL" "" "VARS;FILES" ${ARGN})
  foreach(var NODE NPM SRC_DIR WORK_DIR ${arg_VARS})
    if(NOT DEFINED ${var}
       OR "${${var}}" STREQUAL ""
       OR "${${var}}" MATCHES "NOTFOUND$")
      message(FATAL_ERROR "${name}: ${var} is not set (are node and npm installed?)")
    endif()
  endforeach()

  file(MAKE_DIRECTORY ${WORK_DIR})
  foreach(f package.json package-lock.json ${arg_FILES})
    configure_file(${SRC_DIR}/${f} ${WORK_DIR}/${f} COPYONLY)
  endforeach()

  set(stamp ${WORK_DIR}/node_modules/.libllm-lock-copy)
  if(EXISTS ${stamp})
    file(SHA256 ${stamp} old)
    file(SHA256 ${WORK_DIR}/package-lock.json new)
    if(old STREQUAL new)
      return()
    endif()
  endif()
  set(command ci)
  if(arg_NPM_INSTALL)
    set(command install)
  endif()
  execute_process(
    COMMAND ${NPM} ${command} --no-audit --no-fund
    WORKING_DIRECTORY ${WORK_DIR}
    RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${name}: npm ${command} failed (${rc})")
  endif()
  # Left out of every build folder (CI disks are small): node-llama-cpp's GPU
  # builds, which the oracle never loads (it asks for gpu: false), ~600 MB, and
  # source maps, which node never reads unasked, ~160 MB per copy of the Gemma 3
  # tokenizer package.
  file(
    GLOB gpu_builds
    LIST_DIRECTORIES true
    ${WORK_DIR}/node_modules/@node-llama-cpp/*-cuda*
    ${WORK_DIR}/node_modules/@node-llama-cpp/*-vulkan*)
  file(GLOB_RECURSE source_maps ${WORK_DIR}/node_modules/*.map)
  if(gpu_builds OR source_maps)
    file(REMOVE_RECURSE ${gpu_builds} ${source_maps})
  endif()
  configure_file(${WORK_DIR}/package-lock.json ${stamp} COPYONLY)
endfunction()
