#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) if needed and runs each
# for a bounded time. Fails if any target finds a crash, leak, UB report,
# time-out or out-of-memory.
#
#   tests/fuzz/run_fuzzers.sh SECONDS [TARGET...]
#
# Environment: LLM_FUZZ_BUILD (build folder, default build-fuzz),
# LLM_SHARED_DIR (default ../shared beside the repo).
# Seeds come from make_corpus.py; what the fuzzers discover accumulates in
# $LLM_FUZZ_BUILD/fuzz-corpus/TARGET, crashing inputs in
# $LLM_FUZZ_BUILD/fuzz-artifacts/, logs in $LLM_FUZZ_BUILD/fuzz-logs/.
set -euo pipefail

seconds=${1:?usage: run_fuzzers.sh SECONDS [TARGET...]}
shift
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${LLM_FUZZ_BUILD:-$root/build-fuzz}
shared=$(cd "${LLM_SHARED_DIR:-$root/../shared}" && pwd)
all_targets=(fuzz_llama2c_model fuzz_llama2c_tokenizer fuzz_hf_model fuzz_hf_tokenizer
  fuzz_tokenize fuzz_detokenize fuzz_chat fuzz_gguf fuzz_jinja fuzz_json_schema fuzz_state
  fuzz_grammar)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")

if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLLM_FUZZ=ON -DLLM_BUILD_TESTS=OFF \
    -DLLM_BUILD_TOOLS=OFF -DLLM_BUILD_EXAMPLES=OFF -DLLM_BUILD_BINDINGS=OFF \
    -DLLM_SHARED_DIR="$shared"
fi
ninja -C "$build" -j2 fuzz_targets

seeds=$build/fuzz-seeds
rm -rf "$seeds"
python3 "$here/make_corpus.py" "$seeds" "$shared"

scratch_root=/tmp
[ -d /dev/shm ] && scratch_root=/dev/shm
scratch=$(mktemp -d "$scratch_root/llm-fuzz-run.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
export LLM_FUZZ_SCRATCH=$scratch LLM_SHARED_DIR=$shared
mkdir -p "$build/fuzz-artifacts" "$build/fuzz-logs"

failed=()
for t in "${targets[@]}"; do
  corpus=$build/fuzz-corpus/$t
  log=$build/fuzz-logs/$t.log
  mkdir -p "$corpus"
  rc=0
  start=$(date +%s)
  "$build/tests/fuzz/$t" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$build/fuzz-artifacts/$t-" \
    "$corpus" "$seeds/$t" >"$log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  secs=$(($(date +%s) - start))
  if [ "$rc" -eq 0 ]; then
    echo "$t: OK, ${execs:-?} executions in $secs s, corpus $(ls "$corpus" | wc -l) files"
  else
    echo "$t: FAILED (exit $rc), see $log"
    grep -E "ERROR|promise broken|SUMMARY|Test unit written" "$log" | head -20 || true
    failed+=("$t")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzzing failed: ${failed[*]}"
  exit 1
fi
