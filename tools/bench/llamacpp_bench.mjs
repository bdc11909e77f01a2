#!/usr/bin/env node
// llama.cpp's side of tools/bench/compare.sh, through node-llama-cpp (the
// version pinned in package.json, its prebuilt CPU binaries). Measures what
// llm-bench measures: a prefill of PROMPT tokens as one batch, then GEN
// tokens generated one by one (greedy), REPEAT times after one warm-up run.
// Rates as llama-bench gives them: prompt tok/s = PROMPT / prefill seconds,
// gen tok/s = GEN / generation seconds. Prints one JSON object on stdout.
// With --parallel N (llm-bench --parallel's peer): N sequences of one context,
// each prefilled with its own prompt, then generated together (node-llama-cpp
// puts the sequences' pending tokens into one llama_decode batch); the
// aggregate is N * GEN / generation seconds, next to one sequence alone.
//
//   node llamacpp_bench.mjs MODEL.gguf --threads N [--prompt 128] [--gen 64]
//        [--repeat 3] [--batch 512] [--kv f16|f32] [--seed 1] [--flash-attention]
//        [--parallel N]
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { performance } from "node:perf_hooks";
import process from "node:process";

function usage(msg) {
    if (msg) process.stderr.write(`llamacpp_bench: ${msg}\n`);
    process.stderr.write(
        "usage: node llamacpp_bench.mjs MODEL.gguf --threads N [--prompt N] [--gen N]\n" +
        "       [--repeat N] [--batch N] [--kv f16|f32] [--seed N] [--flash-attention]\n" +
        "       [--parallel N]\n");
    process.exit(2);
}

const opt = { model: null, threads: 0, prompt: 128, gen: 64, repeat: 3, batch: 512, seed: 1,
    kv: "f16", flashAttention: false, parallel: 0 };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const num = () => {
        const v = Number(argv[++i]);
        if (!Number.isInteger(v) || v < 0) usage(`${a} needs a whole number`);
        return v;
    };
    if (a === "--threads") opt.threads = num();
    else if (a === "--prompt") opt.prompt = num();
    else if (a === "--gen") opt.gen = num();
    else if (a === "--repeat") opt.repeat = num();
    else if (a === "--batch") opt.batch = num();
    else if (a === "--seed") opt.seed = num();
    else if (a === "--parallel") opt.parallel = num();
    else if (a === "--kv") {
        opt.kv = argv[++i];
        if (opt.kv !== "f16" && opt.kv !== "f32") usage("--kv is f16 or f32");
    }
    else if (a === "--flash-attention") opt.flashAttention = true;
    else if (a === "-h" || a === "--help") usage();
    else if (a.startsWith("-")) usage(`unknown option ${a}`);
    else if (opt.model === null) opt.model = a;
    else usage(`one model only (got ${a})`);
}
if (opt.model === null) usage("no model given");
if (opt.threads < 1) usage("--threads N (N >= 1) is required: the comparison fixes it on both sides");
if (opt.prompt < 1 || opt.gen < 1 || opt.repeat < 1) usage("--prompt, --gen and --repeat must be >= 1");
if (opt.batch < opt.prompt) usage(`--batch ${opt.batch} is below --prompt ${opt.prompt}: the prompt must be one batch`);

const require = createRequire(import.meta.url);
// The package's exports hide its package.json: find it above its entry point.
function packageVersion(name) {
    let dir = path.dirname(require.resolve(name));
    for (;;) {
        try {
            const pkg = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));
            if (pkg.name === name) return pkg.version;
        } catch { /* not here */ }
        const up = path.dirname(dir);
        if (up === dir) return "unknown";
        dir = up;
    }
}
const nlcVersion = packageVersion("node-llama-cpp");
const { getLlama, LlamaLogLevel } = await import("node-llama-cpp");

// The ggml log names the CPU backend variant the prebuilt binaries loaded.
const logLines = [];
const llama = await getLlama({
    gpu: false,
    build: "never",
    maxThreads: 0, // no cap: the context's `threads` is then the number it uses
    logLevel: LlamaLogLevel.info,
    logger: (level, message) => { logLines.push(String(message).trim()); },
});
const model = await llama.loadModel({ modelPath: opt.model, gpuLayers: 0 });
const nSeq = Math.max(1, opt.parallel);
const context = await model.createContext({
    contextSize: nSeq * (opt.prompt + opt.gen + 1),
    batchSize: opt.batch,
    sequences: nSeq,
    threads: { ideal: opt.threads, min: opt.threads },
    flashAttention: opt.flashAttention,
    experimentalKvCacheKeyType: opt.kv.toUpperCase(),
    experimentalKvCacheValueType: opt.kv.toUpperCase(),
});
const sequence = context.getSequence();

// What every result says about the run: the peer, the model, the threads and
// the KV cache's types.
function runInfo(threadsUsed) {
    return {
        peer: "node-llama-cpp",
        node_llama_cpp: nlcVersion,
        llama_cpp_release: llama.llamaCppRelease.release,
        build_type: llama.buildType,
        model: opt.model,
        model_type: model.typeDescription,
        threads: opt.threads,
        threads_used: threadsUsed,
        kv_type_k: ggmlTypeName(context.kvCacheKeyType),
        kv_type_v: ggmlTypeName(context.kvCacheValueType),
    };
}

// Prompt ids: a fixed pseudo-random sequence over the vocabulary (the ids do
// not change the amount of work).
const nVocab = model.fileInfo?.metadata?.tokenizer?.ggml?.tokens?.length
    ?? model.tokenize("the quick brown fox").reduce((a, b) => Math.max(a, b), 0) + 1;
let state = BigInt(opt.seed) * 6364136223846793005n + 1442695040888963407n;
function nextId() {
    state = (state * 6364136223846793005n + 1442695040888963407n) & ((1n << 64n) - 1n);
    return Number((state >> 33n) % BigInt(nVocab));
}
const prompt = Array.from({ length: opt.prompt }, nextId);

function cpuSeconds() {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
}

// One generator does both parts, as llm-bench does them: the prompt as one
// batch with the last token's logits and a greedy pick from them (prefill),
// then `gen` steps of a one-token llama_decode of the last pick and a greedy
// pick from its logits (generation). The end-of-generation token does not
// stop the run.
async function runOnce(gen) {
    await sequence.clearHistory();
    const it = sequence.evaluate(prompt, { temperature: 0, yieldEogToken: true });
    const t0 = performance.now();
    let step = await it.next();
    const t1 = performance.now();
    let n = 0;
    while (!step.done && n < gen) {
        step = await it.next();
        if (!step.done) ++n;
    }
    const t2 = performance.now();
    await it.return();
    if (n !== gen) throw new Error(`generated ${n} tokens, not ${gen}`);
    if (sequence.nextTokenIndex !== opt.prompt + gen)
        throw new Error(`context holds ${sequence.nextTokenIndex} tokens, not ${opt.prompt + gen}`);
    return { prefill: opt.prompt / ((t1 - t0) / 1e3), decode: gen / ((t2 - t1) / 1e3) };
}

const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    const m = s.length >> 1;
    return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

// --parallel: every sequence prefilled with the prompt (not timed), then GEN
// steps of all of them together; a sequence's generator asks for its next
// token and node-llama-cpp gathers the sequences' tokens into one decode.
async function runParallel(sequences, gen) {
    await Promise.all(sequences.map((s) => s.clearHistory()));
    const its = sequences.map((s) => s.evaluate(prompt, { temperature: 0, yieldEogToken: true }));
    await Promise.all(its.map((it) => it.next()));
    const t1 = performance.now();
    const counts = await Promise.all(its.map(async (it) => {
        let n = 0;
        while (n < gen) {
            const step = await it.next();
            if (step.done) break;
            ++n;
        }
        return n;
    }));
    const t2 = performance.now();
    await Promise.all(its.map((it) => it.return()));
    if (counts.some((n) => n !== gen)) throw new Error(`generated ${counts.join("/")} tokens, not ${gen} each`);
    return sequences.length * gen / ((t2 - t1) / 1e3);
}

if (opt.parallel > 0) {
    const sequences = [sequence];
    while (sequences.length < opt.parallel) sequences.push(context.getSequence());
    await runOnce(Math.min(opt.gen, 2));
    await runParallel(sequences, Math.min(opt.gen, 2));
    const alone = [], together = [];
    for (let r = 0; r < opt.repeat; ++r) {
        alone.push((await runOnce(opt.gen)).decode);
        together.push(await runParallel(sequences, opt.gen));
    }
    const one = median(alone), all = median(together);
    process.stdout.write(JSON.stringify({
        ...runInfo(context.currentThreads),
        system_info: llama.systemInfo,
        prompt_tokens: opt.prompt,
        gen_tokens: opt.gen,
        repeat: opt.repeat,
        decode_tok_s: one,
        parallel: opt.parallel,
        aggregate_decode_tok_s: all,
        per_sequence_decode_tok_s: all / opt.parallel,
        aggregate_over_n_single: all / (opt.parallel * one),
        decode_runs: alone,
        aggregate_runs: together,
    }) + "\n");
    await context.dispose();
    await model.dispose();
    await llama.dispose();
    process.exit(0);
}

await runOnce(Math.min(opt.gen, 2)); // warm-up: pages the weights and scratch in
const prefill = [], decode = [];
let threadsSeen = new Set();
const cpu0 = cpuSeconds(), wall0 = performance.now();
for (let r = 0; r < opt.repeat; ++r) {
    const res = await runOnce(opt.gen);
    prefill.push(res.prefill);
    decode.push(res.decode);
    threadsSeen.add(context.currentThreads);
}
const cpuShare = (cpuSeconds() - cpu0) / ((performance.now() - wall0) / 1e3) / opt.threads;
threadsSeen = [...threadsSeen];
if (threadsSeen.length !== 1 || threadsSeen[0] !== opt.threads)
    throw new Error(`asked for ${opt.threads} threads, llama.cpp context used ${threadsSeen.join("/")}`);

// GgmlType values (ggml.h's enum ggml_type) of the KV cache.
function ggmlTypeName(t) {
    const names = { 0: "f32", 1: "f16", 8: "q8_0", 30: "bf16" };
    return t == null ? "f16" : (names[t] ?? String(t));
}
if (ggmlTypeName(context.kvCacheKeyType) !== opt.kv || ggmlTypeName(context.kvCacheValueType) !== opt.kv)
    throw new Error(`asked for a ${opt.kv} KV cache, the context has ${ggmlTypeName(context.kvCacheKeyType)}/` +
        `${ggmlTypeName(context.kvCacheValueType)}`);
const backend = logLines.filter((l) => /load_backend|CPU backend/.test(l));
const out = {
    ...runInfo(threadsSeen[0]),
    batch_size: context.batchSize,
    context_size: context.contextSize,
    flash_attention: opt.flashAttention,
    prompt_tokens: opt.prompt,
    gen_tokens: opt.gen,
    repeat: opt.repeat,
    prefill_tok_s: median(prefill),
    decode_tok_s: median(decode),
    prefill_runs: prefill,
    decode_runs: decode,
    cpu_share: cpuShare,
    system_info: llama.systemInfo,
    ...(backend.length ? { backend_log: backend } : {}),
};
process.stdout.write(JSON.stringify(out) + "\n");
await context.dispose();
await model.dispose();
await llama.dispose();
