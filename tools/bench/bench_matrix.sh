#!/usr/bin/env bash
# Runs llm-bench over shapes x weight types x thread counts and prints the
# README's performance table (markdown), one row per run, plus the raw JSON
# lines in $OUT (default bench-matrix.jsonl). Run it on an idle machine:
# every number is a median of llm-bench's repeats. The efficiency compares
# a decode run with probe reads paired with its tokens (llm-bench's
# BandwidthProbe); that run's tok/s is the "paired" column, and "probe
# streams" the probe's faster pattern in each repeat. "counting KV reads"
# counts the KV cache's reads as well as the weights'. The last column
# leaves out what the process held before it loaded the model (program,
# C++ runtime, library code: ~3.5 MB), which a host has anyway.
#
#   tools/bench/bench_matrix.sh [LLM_BENCH]
#
# Environment: SHAPES, WEIGHTS, THREADS (space-separated lists), PROMPT,
# GEN, REPEAT, KV (the KV cache's type, f32 or f16), OUT.
set -euo pipefail
bench=${1:-build/tools/llm-bench}
shapes=${SHAPES:-"qwen2.5-0.5b stories110M stories15M"}
weights=${WEIGHTS:-"f32 bf16 f16 q8_0"}
threads=${THREADS:-"1 2"}
prompt=${PROMPT:-128}
gen=${GEN:-32}
repeat=${REPEAT:-3}
kv=${KV:-f32}
out=${OUT:-bench-matrix.jsonl}

: >"$out"
for s in $shapes; do
  for w in $weights; do
    for t in $threads; do
      echo "llm-bench --shape $s --weights $w --threads $t --kv $kv" >&2
      "$bench" --shape "$s" --weights "$w" --threads "$t" --prompt "$prompt" --gen "$gen" \
        --repeat "$repeat" --kv "$kv" --json >>"$out"
    done
  done
done

python3 - "$out" <<'EOF'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
print("| shape | weights | KV | threads | prefill tok/s | prefill GFLOP/s | decode tok/s "
      "| paired decode tok/s | weights MB | read GB/s | probe streams | decode efficiency "
      "| counting KV reads | peak RSS / (weights + KV) | same, above the process's base |")
print("|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
for r in rows:
    need = r["weight_bytes"] + r["kv_cache_bytes"]
    print(f'| {r["model"]} | {r["weight_type"]} | {r["kv_type"]} | {r["threads"]} '
          f'| {r["prefill_tok_s"]:.1f} | {r["prefill_gflops"]:.1f} | {r["decode_tok_s"]:.2f} '
          f'| {r["paired_decode_tok_s"]:.2f} '
          f'| {r["weight_bytes"] / 1e6:.0f} | {r["bandwidth_gb_s"]:.2f} | {r["probe_streams"]} '
          f'| {100 * r["decode_efficiency"]:.0f}% '
          f'| {100 * r["decode_efficiency_with_kv"]:.0f}% | {r["peak_rss_bytes"] / need:.2f} '
          f'| {(r["peak_rss_bytes"] - r["base_rss_bytes"]) / need:.2f} |')
EOF
