#!/usr/bin/env bash
# The whole test suite: installs what is needed, then
#   1. the release build and every test CTest knows (goldens, bindings, Node,
#      packaging, consumers, Windows cross-check) and the Doxygen reference;
#   2. the same C/C++ suite built with AddressSanitizer + UBSan;
#   3. the concurrency, thread pool and matrix-product tests built with
#      ThreadSanitizer;
#   4. every fuzz target for a short, bounded time.
# Build folders: build/, build-asan/, build-tsan/, build-fuzz/.
# LLM_CLEAN_BUILDS=1 (.ci/run sets it) removes each stage's build folder once
# the stage has passed: kept together they needed 8.5 GB, more than CI disks spare.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
export LLM_SHARED_DIR="${LLM_SHARED_DIR:-$root/../shared}"
jobs="$(nproc)"
fuzz_seconds="${LLM_FUZZ_SECONDS:-30}"
clean_builds="${LLM_CLEAN_BUILDS:-0}"

start_time=$(date +%s)
step() { printf '\n==== [%4ds] %s\n' "$(($(date +%s) - start_time))" "$*"; }
done_with() { if [ "$clean_builds" = 1 ]; then rm -rf "$@"; fi; }

step "dependencies"
scripts/install-deps.sh

step "format check"
scripts/check-format.sh

step "release build + ctest"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DLLM_SHARED_DIR="$LLM_SHARED_DIR"
cmake --build build -j "$jobs"
cmake --build build --target docs # the API reference: Doxygen warnings fail it
(cd build && ctest --output-on-failure --timeout 600 -j "$jobs")
done_with build

step "AddressSanitizer + UBSan build + ctest"
# -g1: line tables are all the sanitizers' reports need, in a smaller folder
# than -g makes.
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLLM_SANITIZE=ON \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DLLM_BUILD_BINDINGS=OFF -DLLM_PACKAGING_TESTS=OFF -DLLM_SHARED_DIR="$LLM_SHARED_DIR"
cmake --build build-asan -j "$jobs"
(cd build-asan && ctest --output-on-failure --timeout 600 -j "$jobs")
done_with build-asan

if [ -x tests/fuzz/run_fuzzers.sh ]; then
  step "fuzz targets, ${fuzz_seconds}s each"
  tests/fuzz/run_fuzzers.sh "$fuzz_seconds"
fi
if [ -x tests/tsan/run_tsan.sh ]; then
  step "ThreadSanitizer"
  tests/tsan/run_tsan.sh
fi
step "all tests passed"
