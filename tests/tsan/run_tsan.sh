#!/usr/bin/env bash
# Builds the tests with ThreadSanitizer (build-tsan/, -DLLM_TSAN=ON) and runs
# the concurrency and cancellation tests (8 threads sharing one model,
# cancel from another thread), the automatic batching scheduler under 16
# threads (tests/api/test_auto_batch.cpp) and the thread pool's own tests
# (claims, steals, back-to-back jobs, matrix products split over threads).
# Fails on any data race report.
#
#   tests/tsan/run_tsan.sh            (LLM_SHARED_DIR, LLM_TSAN_BUILD optional)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${LLM_TSAN_BUILD:-$root/build-tsan}
shared=$(cd "${LLM_SHARED_DIR:-$root/../shared}" && pwd)

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLLM_TSAN=ON \
  -DLLM_BUILD_TOOLS=OFF -DLLM_BUILD_EXAMPLES=OFF -DLLM_BUILD_BINDINGS=OFF \
  -DLLM_SHARED_DIR="$shared" >/dev/null
cmake --build "$build" -j 2 --target llm_tests llm_internal_tests
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
# A time limit per test, as scripts/test.sh gives the other suites: without
# one (the project calls enable_testing(), which sets no default), a test
# that hangs would hold CI until its own limit and report nothing.
(cd "$build" && ctest --output-on-failure --timeout 600 -R 'concurrency|cancel|thread pool|matmul|auto batch: 16 threads')
