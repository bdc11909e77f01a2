# arm64-cross: cross-compiles libllm, its tests and tools for 64-bit Arm
# Linux with Debian's aarch64-linux-gnu toolchain
# (cmake/toolchains/aarch64-linux-gnu.cmake) and runs that build's test suite
# under qemu-user (tests/cross/arm64_cross.cmake): the goldens and kernel
# tests on the NEON kernels, which an x86-64 machine cannot run otherwise, and
# on the scalar ones compiled for Arm (where char is unsigned). It takes a few
# minutes; -DLLM_TEST_ARM64=OFF skips it. On an Arm machine the ordinary
# build already runs the NEON kernels.
find_program(LLM_ARM64_CXX aarch64-linux-gnu-g++)
find_program(LLM_QEMU_AARCH64 qemu-aarch64)
set(_llm_arm64_default OFF)
if(LLM_ARM64_CXX
   AND LLM_QEMU_AARCH64
   AND CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$"
   AND NOT CMAKE_CROSSCOMPILING
   AND NOT LLM_SANITIZE
   AND NOT LLM_TSAN)
  set(_llm_arm64_default ON)
endif()
option(LLM_TEST_ARM64 "Cross-compile for arm64 Linux and run the tests (NEON kernels) under qemu"
       ${_llm_arm64_default})

if(LLM_TEST_ARM64)
  add_test(
    NAME arm64-cross
    COMMAND
      ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_CURRENT_SOURCE_DIR}
      -DWORK=${CMAKE_CURRENT_BINARY_DIR}/arm64-cross -DSHARED=${LLM_SHARED_DIR} -P
      ${CMAKE_CURRENT_SOURCE_DIR}/tests/cross/arm64_cross.cmake)
  set_tests_properties(arm64-cross PROPERTIES TIMEOUT 2700)
endif()
