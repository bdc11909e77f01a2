# CTest fixture gguf_oracle.setup: installs the pinned npm packages
# (node-llama-cpp 3.22.1 and its prebuilt llama.cpp, at package-lock.json's
# versions) into WORK_DIR and writes there gguf_oracle.json: llama.cpp's ids
# and top-2 predictions on every .gguf file in MODELS_DIR (made by the
# gguf_models fixture), and its top-1 along the reference outputs in GOLDEN_DIR.
# Fails, never skips, when node or npm is missing or the registry cannot be
# reached.
foreach(var NODE NPM SRC_DIR WORK_DIR MODELS_DIR GOLDEN_DIR)
  if(NOT DEFINED ${var}
     OR "${${var}}" STREQUAL ""
     OR "${${var}}" MATCHES "NOTFOUND$")
    message(FATAL_ERROR "gguf oracle: ${var} is not set (are node and npm installed?)")
  endif()
endforeach()

file(MAKE_DIRECTORY ${WORK_DIR})
foreach(f package.json package-lock.json gen_oracle.mjs)
  configure_file(${SRC_DIR}/${f} ${WORK_DIR}/${f} COPYONLY)
endforeach()

# Reinstall only when the lock file changed since the last install.
set(stamp ${WORK_DIR}/node_modules/.libllm-lock-copy)
set(need_install TRUE)
if(EXISTS ${stamp})
  file(SHA256 ${stamp} old)
  file(SHA256 ${WORK_DIR}/package-lock.json new)
  if(old STREQUAL new)
    set(need_install FALSE)
  endif()
endif()
if(need_install)
  execute_process(
    # (npm install, not npm ci: node-llama-cpp's optional binary packages for
    # other platforms are not all in the lock file, which npm ci refuses)
    COMMAND ${NPM} install --no-audit --no-fund
    WORKING_DIRECTORY ${WORK_DIR}
    RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gguf oracle: npm install failed (${rc})")
  endif()
  configure_file(${WORK_DIR}/package-lock.json ${stamp} COPYONLY)
endif()

file(GLOB files ${MODELS_DIR}/*.gguf)
list(SORT files)
if(NOT files)
  message(FATAL_ERROR "gguf oracle: no .gguf files in ${MODELS_DIR}")
endif()
execute_process(
  COMMAND ${NODE} gen_oracle.mjs ${WORK_DIR}/gguf_oracle.json --golden ${GOLDEN_DIR} ${files}
  WORKING_DIRECTORY ${WORK_DIR}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gguf oracle: gen_oracle.mjs failed (${rc})")
endif()
