# arm64 build of libllm, made on x86-64 and run under qemu-user:
#  1. cross-compile the library, the C/C++ test suite, the tools and the
#     examples (no language bindings, no packaging tests);
#  2. check that the kernels chosen at run time are the NEON dot product
#     ones (qemu's "max" CPU has the extension), and plain NEON when forced;
#  3. run that build's CTest suite under the emulator: every Catch2 test on
#     the level detected at run time (neondot) and the kernel tests again
#     forced to neon, the command-line goldens, the examples and llm-bench.
#     Left out: the neondot-forced copies (the same level as detected), the
#     scalar-forced ones (portable C++ the x86-64 suite runs forced to
#     scalar too; under the emulator they took a third of this test's time),
#     the tokenizer oracle (no kernel in it; it needs npm packages), the
#     scheduler's prompt-interleave tests (no kernel of their own; 90-190 s
#     each under the emulator) and the neon-forced copies of the prompt-piece
#     tests (they run on the detected level).
#   cmake -DSOURCE_DIR= -DWORK= -DSHARED= -P arm64_cross.cmake
include(${SOURCE_DIR}/tests/packaging/common.cmake)

string(TIMESTAMP started "%s")
set(build ${WORK}/build)

# ---- 1. cross build ---------------------------------------------------------------
llm_run(
  ${CMAKE_COMMAND}
  -S
  ${SOURCE_DIR}
  -B
  ${build}
  -G
  Ninja
  -DCMAKE_TOOLCHAIN_FILE=${SOURCE_DIR}/cmake/toolchains/aarch64-linux-gnu.cmake
  -DCMAKE_BUILD_TYPE=Release
  -DLLM_BUILD_BINDINGS=OFF
  -DLLM_PACKAGING_TESTS=OFF
  -DLLM_SHARED_DIR=${SHARED})
llm_run(
  ${CMAKE_COMMAND}
  --build
  ${build}
  --parallel
  2
  TIMEOUT
  1200)

# ---- 2. the run-time level ----------------------------------------------------------
# The tests below pass on scalar kernels too: first make sure the build did
# pick the NEON kernels (llm-bench names the level it ran on, whatever the
# kernels compute).
find_program(qemu qemu-aarch64 REQUIRED)
foreach(forced "" neon)
  if(forced STREQUAL "")
    set(expected neondot)
  else()
    set(expected ${forced})
  endif()
  llm_run(
    ${CMAKE_COMMAND}
    -E
    env
    LLM_SIMD=${forced}
    ${qemu}
    -cpu
    max
    -L
    /usr/aarch64-linux-gnu
    ${build}/tools/llm-bench
    ${SHARED}/models/stories260K.bin
    -z
    ${SHARED}/models/tok512.bin
    --prompt
    4
    --gen
    2
    --repeat
    1
    --probe-mb
    16
    --json
    OUTPUT
    bench)
  if(NOT bench MATCHES "\"simd\": \"${expected}\"")
    message(
      FATAL_ERROR "LLM_SIMD='${forced}': the arm64 build did not run on ${expected}: ${bench}")
  endif()
endforeach()

# ---- 3. the test suite under the emulator ----------------------------------------
llm_run(
  ${CMAKE_CTEST_COMMAND}
  --output-on-failure
  --timeout
  600
  -j
  2
  -LE
  "simd-(neondot|scalar)"
  -E
  "tokenizer_oracle|prefill interleave|neon: ?prefill pieces"
  WORKING_DIRECTORY
  ${build}
  OUTPUT
  out
  TIMEOUT
  2400)
string(REGEX MATCH "[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+" summary "${out}")
string(TIMESTAMP finished "%s")
math(EXPR seconds "${finished} - ${started}")
message(STATUS "arm64 under qemu: ${summary} (${seconds} s in all)")
