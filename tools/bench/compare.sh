#!/usr/bin/env bash
# libllm against llama.cpp on the same GGUF files, in the same run, taking
# turns. For each file and thread count it runs, REPEAT times in turn:
#   libllm      llm-bench FILE --threads N --prompt P --gen G --repeat 1 --json
#   llama.cpp   node-llama-cpp (tools/bench/llamacpp_bench.mjs, the version
#               pinned in tools/bench/package.json, its prebuilt CPU binaries)
#   llama.cpp   llama-bench -m FILE -p P -n G -t N -r 1 -o json, when
#               LLAMA_BENCH names a llama-bench built from source
# then prints one table: per weight type, test (prefill, decode) and thread
# count, libllm's median tok/s, llama.cpp's (the faster of its peers, named),
# their ratio, and the geometric mean of the ratios. The same goes to
# OUT/compare.md and OUT/compare.json; every run's JSON is in OUT/runs.jsonl.
# With --parallel "2 4 8", it measures instead, per N, N sequences decoded
# together (llm-bench --parallel N against node-llama-cpp's N sequences on
# one context, which it batches into one llama_decode per step): aggregate
# tok/s, and each tool's aggregate over N x its single-sequence decode.
# See docs/performance.md.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

usage() {
    cat <<EOF
usage: tools/bench/compare.sh [options] [MODEL.gguf ...]

Without MODEL files, makes GGUF files with random weights in --shape's shape
(Qwen2.5-0.5B by default), one per --types entry, with llm-make-model (kept in
OUT/models and reused; delete them to make them again). Options are read in
order: a --prompt, --gen or --repeat after --quick overrides it.

options:
  --quick            smoke test: prompt 32, gen 16, repeat 1
  --prompt N         prompt tokens, one batch (default 128)
  --gen N            generated tokens (default 64)
  --repeat N         turns per tool, medians reported (default 3)
  --threads "1 2"    thread counts (default "1 2")
  --parallel "2 8"   batched decoding of N sequences at once, per N, instead
                     of prefill and decode (node-llama-cpp is the only peer)
  --types "..."      weight types of the made files (default "$default_types")
  --shape NAME       shape of the made files (default qwen2.5-0.5b; tiny256 for
                     smoke tests)
  --kv f16|f32       the KV cache's type on every side (default f16, llama.cpp's
                     default)
  --out DIR          results and made models (default build/bench-compare)
  --llm-bench PATH   libllm's llm-bench (default build/tools/llm-bench)
  --make-model PATH  llm-make-model (default build/tools/modelgen/llm-make-model)
  --tokenizer DIR    tokenizer.json folder for made files
                     (default ../shared/models/qwen2-tiny beside the repo)
  --no-node          skip node-llama-cpp (then LLAMA_BENCH is needed)
  -h, --help         this text

environment:
  LLAMA_BENCH        path of llama-bench from a llama.cpp build (optional peer)
  LLAMA_QUANTIZE     path of llama-quantize: made files of quantized types are
                     then quantized by it from the made f32 file, instead of
                     written by llm-make-model
  NODE               node binary (default: node on PATH)
  LLM_BENCH_ARGS     more arguments for llm-bench (e.g. "--probe-mb 256")
EOF
}

die() {
    echo "compare.sh: $*" >&2
    exit 1
}

default_types="f32 f16 bf16 q8_0 q4_0 q4_k_m"
prompt=128 gen=64 repeat=3 threads="1 2" types=$default_types kv=f16 out=$root/build/bench-compare
llm_bench=$root/build/tools/llm-bench
make_model=$root/build/tools/modelgen/llm-make-model
tokenizer=$root/../shared/models/qwen2-tiny
use_node=1
parallel=""
shape=qwen2.5-0.5b
models=()

need_arg() { [[ $# -ge 2 && -n $2 ]] || die "$1 needs a value"; }
while [[ $# -gt 0 ]]; do
    case $1 in
    -h | --help) usage; exit 0 ;;
    --quick) prompt=32 gen=16 repeat=1; shift ;;
    --prompt) need_arg "$@"; prompt=$2; shift 2 ;;
    --gen) need_arg "$@"; gen=$2; shift 2 ;;
    --repeat) need_arg "$@"; repeat=$2; shift 2 ;;
    --threads) need_arg "$@"; threads=$2; shift 2 ;;
    --parallel) need_arg "$@"; parallel=$2; shift 2 ;;
    --types) need_arg "$@"; types=$2; shift 2 ;;
    --shape) need_arg "$@"; shape=$2; shift 2 ;;
    --kv) need_arg "$@"; kv=$2; shift 2 ;;
    --out) need_arg "$@"; out=$2; shift 2 ;;
    --llm-bench) need_arg "$@"; llm_bench=$2; shift 2 ;;
    --make-model) need_arg "$@"; make_model=$2; shift 2 ;;
    --tokenizer) need_arg "$@"; tokenizer=$2; shift 2 ;;
    --no-node) use_node=0; shift ;;
    --) shift; models+=("$@"); break ;;
    -*) usage >&2; die "unknown option $1" ;;
    *) models+=("$1"); shift ;;
    esac
done

for v in prompt gen repeat; do
    [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "--$v must be a positive whole number (got '${!v}')"
done
for t in $threads; do
    [[ $t =~ ^[1-9][0-9]*$ ]] || die "--threads takes positive whole numbers (got '$t')"
done
[[ -n ${threads// /} ]] || die "--threads is empty"
for n in $parallel; do
    [[ $n =~ ^[1-9][0-9]*$ ]] || die "--parallel takes positive whole numbers (got '$n')"
done
[[ -z $parallel ]] || ((use_node)) || die "--parallel needs node-llama-cpp (llama-bench has no such mode)"
[[ $kv == f16 || $kv == f32 ]] || die "--kv is f16 or f32 (got '$kv')"

# --- the tools ---------------------------------------------------------------
command -v python3 >/dev/null || die "python3 is needed (it summarises the runs)"
[[ -x $llm_bench ]] || die "no llm-bench at $llm_bench: build it (cmake --build build --target llm-bench) or pass --llm-bench PATH"
node=${NODE:-node}
if ((use_node)); then
    command -v "$node" >/dev/null || die "node not found (set NODE, or --no-node with LLAMA_BENCH)"
    [[ -d $here/node_modules/node-llama-cpp ]] ||
        die "node-llama-cpp is not installed: run 'npm install --no-save --prefix tools/bench' (the version is pinned in tools/bench/package.json)"
fi
llama_bench=${LLAMA_BENCH:-}
if [[ -n $llama_bench ]]; then
    [[ -x $llama_bench ]] || die "LLAMA_BENCH=$llama_bench is not an executable file"
fi
((use_node)) || [[ -n $llama_bench ]] || die "--no-node leaves no llama.cpp peer: set LLAMA_BENCH"

mkdir -p "$out/logs"
runs=$out/runs.jsonl
: >"$runs"

# --- the models ----------------------------------------------------------------
if [[ ${#models[@]} -eq 0 ]]; then
    [[ -x $make_model ]] || die "no llm-make-model at $make_model: build it or pass --make-model PATH (or give GGUF files)"
    [[ -f $tokenizer/tokenizer.json ]] || die "no tokenizer.json in $tokenizer: pass --tokenizer DIR"
    quantize=${LLAMA_QUANTIZE:-}
    [[ -z $quantize || -x $quantize ]] || die "LLAMA_QUANTIZE=$quantize is not an executable file"
    mkdir -p "$out/models"
    make_file() { # make_file TYPE FILE
        local ty=$1 f=$2 log=$out/logs/make-$1.log
        [[ -s $f ]] && return 0
        echo "making $f" >&2
        if [[ -n $quantize && $ty != f32 && $ty != f16 && $ty != bf16 ]]; then
            make_file f32 "$out/models/$shape-f32.gguf"
            "$quantize" "$out/models/$shape-f32.gguf" "$f.tmp" "$(tr '[:lower:]' '[:upper:]' <<<"$ty")" >"$log" 2>&1 ||
                { tail -5 "$log" >&2; die "llama-quantize failed for $ty (log: $log)"; }
        else
            "$make_model" --shape "$shape" --format gguf --gguf-type "$ty" --name "$shape-$ty" \
                --tokenizer-from "$tokenizer" --out "$f.tmp" >"$log" 2>&1 ||
                { tail -5 "$log" >&2; die "llm-make-model failed for $ty (log: $log)"; }
        fi
        mv "$f.tmp" "$f"
    }
    for ty in $types; do
        f=$out/models/$shape-$ty.gguf
        if [[ -n $quantize && $ty != f32 && $ty != f16 && $ty != bf16 ]]; then
            f=$out/models/$shape-$ty.llama-quantize.gguf
        fi
        make_file "$ty" "$f"
        models+=("$f")
    done
fi
for m in "${models[@]}"; do
    [[ -f $m ]] || die "no such file: $m"
    [[ $(head -c 4 "$m") == GGUF ]] || die "$m is not a GGUF file"
done

# --- the runs ------------------------------------------------------------------
# run TOOL MODEL THREADS TURN CMD...: runs CMD, its stdout's last line (JSON)
# goes into runs.jsonl with the tool, file, threads and turn.
run() {
    local tool=$1 model=$2 t=$3 turn=$4
    shift 4
    local log
    log=$out/logs/$(basename "$model" .gguf)-$tool-t$t-r$turn
    echo "  $tool: $*" >&2
    # The child's CPU time over its wall time, load included: the only
    # sign from llama-bench of whether its threads had their cores.
    if ! python3 -c '
import json, resource, subprocess, sys, time
t0 = time.monotonic()
with open(sys.argv[1] + ".out", "w") as out, open(sys.argv[1] + ".err", "w") as err:
    rc = subprocess.call(sys.argv[2:], stdout=out, stderr=err)
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
json.dump({"cpu_s": ru.ru_utime + ru.ru_stime, "wall_s": time.monotonic() - t0},
          open(sys.argv[1] + ".time", "w"))
sys.exit(rc)' "$log" "$@"; then
        tail -15 "$log.err" >&2
        if [[ $tool == llama-bench && $kv != f16 ]] && grep -q -- '-ctk' "$log.err"; then
            echo "compare.sh: this llama-bench takes no $kv KV cache (-ctk $kv); use --kv f16" >&2
        fi
        die "$tool failed on $model with $t threads (logs: $log.err)"
    fi
    python3 - "$tool" "$model" "$t" "$turn" "$log" >>"$runs" <<'EOF'
import json, sys
tool, model, threads, turn, log = sys.argv[1:]
text = open(log + ".out").read().strip()
try:
    data = json.loads(text) if tool == "llama-bench" else json.loads(text.splitlines()[-1])
except (ValueError, IndexError):
    sys.exit(f"compare.sh: {tool} printed no JSON (see {log}.out)")
print(json.dumps({"tool": tool, "file": model, "threads": int(threads), "turn": int(turn),
                  "process": json.load(open(log + ".time")), "result": data}))
EOF
}

read -r -a llm_extra <<<"${LLM_BENCH_ARGS:-}"
for m in "${models[@]}"; do
    for t in $threads; do
        echo "$m, $t thread(s)" >&2
        for n in $parallel; do
            for ((r = 1; r <= repeat; ++r)); do
                run libllm "$m" "$t" "$r" "$llm_bench" "$m" --threads "$t" --prompt "$prompt" \
                    --gen "$gen" --repeat 1 --kv "$kv" --parallel "$n" --json \
                    ${llm_extra[@]+"${llm_extra[@]}"}
                run node-llama-cpp "$m" "$t" "$r" "$node" "$here/llamacpp_bench.mjs" "$m" \
                    --threads "$t" --prompt "$prompt" --gen "$gen" --repeat 1 --kv "$kv" \
                    --parallel "$n"
            done
        done
        [[ -z $parallel ]] || continue
        for ((r = 1; r <= repeat; ++r)); do
            run libllm "$m" "$t" "$r" "$llm_bench" "$m" --threads "$t" --prompt "$prompt" \
                --gen "$gen" --repeat 1 --kv "$kv" --json ${llm_extra[@]+"${llm_extra[@]}"}
            if ((use_node)); then
                run node-llama-cpp "$m" "$t" "$r" "$node" "$here/llamacpp_bench.mjs" "$m" \
                    --threads "$t" --prompt "$prompt" --gen "$gen" --repeat 1 --kv "$kv"
            fi
            if [[ -n $llama_bench ]]; then
                run llama-bench "$m" "$t" "$r" "$llama_bench" -m "$m" -p "$prompt" -n "$gen" \
                    -t "$t" -r 1 -fa 0 -ctk "$kv" -ctv "$kv" -o json
            fi
        done
    done
done

# --- the table -------------------------------------------------------------------
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [[ $commit != unknown ]] && ! git -C "$root" diff --quiet HEAD -- src include 2>/dev/null; then
    commit="$commit (+ uncommitted changes in src/ or include/)"
fi
python3 - "$runs" "$out" "$commit" "$prompt" "$gen" "$repeat" "$kv" <<'EOF'
import datetime, json, math, os, platform, re, statistics, struct, sys

runs_path, out, commit, prompt, gen, repeat, kv = sys.argv[1:]
runs = [json.loads(line) for line in open(runs_path) if line.strip()]

# general.file_type of a GGUF file, as a name (what its weights are).
FILE_TYPES = {0: "f32", 1: "f16", 2: "q4_0", 3: "q4_1", 7: "q8_0", 8: "q5_0", 9: "q5_1",
              10: "q2_k", 11: "q3_k_s", 12: "q3_k_m", 13: "q3_k_l", 14: "q4_k_s", 15: "q4_k_m",
              16: "q5_k_s", 17: "q5_k_m", 18: "q6_k", 32: "bf16"}
SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "B", 10: "Q", 11: "q", 12: "d"}

def gguf_file_type(path):
    with open(path, "rb") as f:
        def rd(fmt):
            n = struct.calcsize(fmt)
            return struct.unpack("<" + fmt, f.read(n))[0]
        def skip(vtype):
            if vtype == 8:
                f.seek(rd("Q"), 1)
            elif vtype == 9:
                etype, count = rd("I"), rd("Q")
                if etype in SCALARS:
                    f.seek(struct.calcsize(SCALARS[etype]) * count, 1)
                else:
                    for _ in range(count):
                        skip(etype)
            else:
                f.seek(struct.calcsize(SCALARS[vtype]), 1)
        if f.read(4) != b"GGUF":
            return "?"
        rd("I"); rd("Q")
        for _ in range(rd("Q")):
            key = f.read(rd("Q")).decode()
            vtype = rd("I")
            if key == "general.file_type" and vtype in SCALARS:
                v = rd(SCALARS[vtype])
                return FILE_TYPES.get(v, f"type {v}")
            skip(vtype)
    return "?"

def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()

def cpu_flags():
    flags = set()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith(("flags", "Features")):
                flags = set(line.split(":", 1)[1].split())
                break
    except OSError:
        pass
    shown = [f for f in ("avx2", "avx_vnni", "avx512f", "avx512_vnni", "avx512_bf16") if f in flags]
    if "amx_tile" in flags:
        shown.append("amx (" + ", ".join(f for f in ("amx_bf16", "amx_int8", "amx_fp16")
                                        if f in flags) + ")")
    return shown

def fail(msg):
    sys.exit("compare.sh: " + msg)

# (file, threads, tool, test) -> tok/s of each turn
rates, busy, peer_info, files, lib_types, system_info = {}, {}, {}, [], {}, {}
scaling = {}  # (file, threads, tool, N) -> aggregate / (N x alone) of each turn

def rates_of(tool, fname, t, res):
    """tok/s by test of an llm-bench or llamacpp_bench.mjs run (a --parallel
    run: its aggregate, and its scaling kept aside)."""
    if "parallel" in res:
        scaling.setdefault((fname, t, tool, res["parallel"]), []).append(
            res["aggregate_over_n_single"])
        return {f"decode x{res['parallel']}": res["aggregate_decode_tok_s"]}
    busy.setdefault(tool, []).append(res["cpu_share"])
    return {"prefill": res["prefill_tok_s"], "decode": res["decode_tok_s"]}
for r in runs:
    tool, fname, t, res = r["tool"], r["file"], r["threads"], r["result"]
    if fname not in files:
        files.append(fname)
    if tool == "libllm":
        if res["threads"] != t:
            fail(f"llm-bench ran {res['threads']} threads, not {t}")
        if res["kv_type"] != kv:
            fail(f"llm-bench's KV cache was {res['kv_type']}, not {kv}")
        got = rates_of(tool, fname, t, res)
        peer_info[tool] = f"llm-bench ({res['simd']} kernels, KV {res['kv_type']})"
        lib_types.setdefault(fname, set()).add(res["weight_type"])
    elif tool == "node-llama-cpp":
        if res["threads_used"] != t:
            fail(f"node-llama-cpp ran {res['threads_used']} threads, not {t}")
        if (res["kv_type_k"], res["kv_type_v"]) != (kv, kv):
            fail(f"node-llama-cpp's KV cache was {res['kv_type_k']}/{res['kv_type_v']}, not {kv}")
        got = rates_of(tool, fname, t, res)
        system_info[tool] = res.get("system_info")
        peer_info[tool] = (f"node-llama-cpp {res['node_llama_cpp']} ({res['build_type']} binaries, "
                           f"llama.cpp release {res['llama_cpp_release']}, KV {res['kv_type_k']})")
    elif tool == "llama-bench":
        got = {}
        for test in res:
            if test["n_threads"] != t:
                fail(f"llama-bench ran {test['n_threads']} threads, not {t}")
            if (test["type_k"], test["type_v"]) != (kv, kv):
                fail(f"llama-bench's KV cache was {test['type_k']}/{test['type_v']}, not {kv}")
            if test["n_prompt"] > 0 and test["n_gen"] == 0:
                got["prefill"] = test["avg_ts"]
            elif test["n_gen"] > 0 and test["n_prompt"] == 0:
                got["decode"] = test["avg_ts"]
            peer_info[tool] = (f"llama-bench (llama.cpp {test.get('build_commit', '?')}, build "
                               f"{test.get('build_number', '?')}, KV {test.get('type_k', '?')})")
        if set(got) != {"prefill", "decode"}:
            fail(f"llama-bench gave no pp/tg pair for {fname}")
        p = r["process"]
        busy.setdefault(tool, []).append(p["cpu_s"] / p["wall_s"] / t)
    else:
        fail(f"unknown tool {tool}")
    for test, v in got.items():
        rates.setdefault((fname, t, tool, test), []).append(v)

peers = [p for p in ("node-llama-cpp", "llama-bench") if p in peer_info]
types = {f: gguf_file_type(f) for f in files}
thread_counts = sorted({r["threads"] for r in runs})
rows = []
for f in files:
    tests = ["decode", "prefill"] + [f"decode x{n}" for n in sorted({k[3] for k in scaling})]
    for test in tests:
        for t in thread_counts:
            lib = rates.get((f, t, "libllm", test))
            if not lib:
                continue
            # The file's type, and libllm's own name for what it ran, when
            # that differs (a type it converts at load, say).
            ran = sorted(lib_types.get(f, ()))
            label = types[f]
            if ran and ran != [label]:
                label += f" (libllm: {'/'.join(ran)})"
            row = {"weights": label, "file": f, "test": test, "threads": t,
                   "libllm": statistics.median(lib), "runs": {"libllm": lib}}
            best, best_peer = None, None
            for p in peers:
                v = rates.get((f, t, p, test))
                if not v:
                    continue
                row["runs"][p] = v
                row[p] = statistics.median(v)
                if best is None or row[p] > best:
                    best, best_peer = row[p], p
            if best is None:
                continue
            row["llama_cpp"], row["peer"], row["ratio"] = best, best_peer, row["libllm"] / best
            if test.startswith("decode x"):
                n = int(test[len("decode x"):])
                row["scaling"] = {p: statistics.median(scaling[(f, t, p, n)])
                                  for p in ["libllm"] + peers if (f, t, p, n) in scaling}
            rows.append(row)
if not rows:
    fail("no rows: nothing was measured")

def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None

gm = {"all": geomean([r["ratio"] for r in rows]),
      "decode": geomean([r["ratio"] for r in rows if r["test"] == "decode"]),
      "prefill": geomean([r["ratio"] for r in rows if r["test"] == "prefill"]),
      "parallel": geomean([r["ratio"] for r in rows if r["test"].startswith("decode x")])}
now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
machine = {"cpu": cpu_model(), "flags": cpu_flags(), "logical_cpus": os.cpu_count(),
           "os": f"{platform.system()} {platform.release()}"}
report = {"date": now, "commit": commit, "machine": machine,
          "settings": {"prompt_tokens": int(prompt), "gen_tokens": int(gen), "repeat": int(repeat),
                       "kv": kv},
          "tools": peer_info, "cpu_share": {k: [min(v), max(v)] for k, v in busy.items()},
          "system_info": system_info,
          "rows": rows, "geomean_ratio": gm}
with open(os.path.join(out, "compare.json"), "w") as fh:
    json.dump(report, fh, indent=1)

md = []
md.append(f"{now}, libllm at {commit}; {machine['cpu']} ({machine['logical_cpus']} logical CPUs; "
          f"{', '.join(machine['flags']) or 'no AVX2'}), {machine['os']}.")
md.append(f"Prefill: {prompt} tokens as one batch; decode: {gen} tokens generated one by one; "
          f"decode xN: N sequences, each after the {prompt}-token prompt, {gen} tokens each, "
          f"stepped together (aggregate tok/s; 'of N x alone' is that over N times the same "
          f"tool's one sequence decoding alone); "
          f"medians of {repeat} turn(s), the tools taking turns on each file and thread count. "
          f"Files: {', '.join(os.path.basename(f) for f in files)}.")
md.append("")
for k in ["libllm"] + peers:
    share = report["cpu_share"].get(k)
    whole = " (whole process, model load and warm-up included)" if k == "llama-bench" else ""
    extra = f"; busy {share[0]:.2f}-{share[1]:.2f} of its threads' time{whole}" if share else ""
    md.append(f"- {k}: {peer_info[k]}{extra}")
low = {k: v[0] for k, v in report["cpu_share"].items() if v[0] < 0.9 and k != "llama-bench"}
if low:
    md.append("")
    md.append("**Busy machine**: " + ", ".join(f"{k}'s threads had their cores only {v:.0%} of "
                                             f"the time" for k, v in low.items())
              + " in some run; these numbers are not a fair comparison.")
md.append("")
has_scaling = any("scaling" in r for r in rows)
cols = ["weights", "test", "threads", "libllm tok/s"] + [f"{p} tok/s" for p in peers] + \
       ["llama.cpp tok/s", "faster peer", "libllm / llama.cpp"] + \
       (["libllm of N x alone", "llama.cpp of N x alone"] if has_scaling else [])
md.append("| " + " | ".join(cols) + " |")
md.append("|---|---|--:|--:|" + "--:|" * len(peers) + "--:|---|--:|" + "--:|--:|" * has_scaling)
fmt = lambda v: "-" if v is None else (f"{v:.1f}" if v >= 100 else f"{v:.2f}")
for r in rows:
    cells = [r["weights"], r["test"], str(r["threads"]), fmt(r["libllm"])]
    cells += [fmt(r.get(p)) for p in peers]
    cells += [fmt(r["llama_cpp"]), r["peer"], f"{r['ratio']:.2f}"]
    if has_scaling:
        sc = r.get("scaling", {})
        cells += [f"{sc[k]:.2f}" if k in sc else "-" for k in ("libllm", r["peer"])]
    md.append("| " + " | ".join(cells) + " |")
md.append("")
md.append(f"Geometric mean of libllm / llama.cpp: {gm['all']:.3f} over {len(rows)} rows"
          + "".join(f"; {k} {gm[k]:.3f}" for k in ("decode", "prefill", "parallel")
                    if gm[k] is not None) + ".")
text = "\n".join(md) + "\n"
with open(os.path.join(out, "compare.md"), "w") as fh:
    fh.write(text)
print(text, end="")
print(f"(also in {os.path.join(out, 'compare.md')} and {os.path.join(out, 'compare.json')})",
      file=sys.stderr)
EOF
