#!/usr/bin/env node
// llama.cpp's answers on GGUF files, through node-llama-cpp (the version
// pinned in package.json, its prebuilt CPU binaries): for each file, the ids
// of a corpus of strings (special tokens parsed and not), and a token
// sequence evaluated teacher-forced with llama.cpp's top-1 and top-2 next
// tokens, their logits and probabilities at every position. With --golden
// DIR (shared/golden), also llama.cpp's top-1 along the reference outputs
// of stories260K (run.c) and qwen2-tiny (PyTorch) on their GGUF files. One JSON file for
// tests/api/test_gguf_oracle.cpp.
//
//   node gen_oracle.mjs OUT.json [--golden DIR] MODEL.gguf...
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import process from "node:process";

import { getLlama, LlamaLogLevel } from "node-llama-cpp";

const args = process.argv.slice(2);
let golden = null;
const g = args.indexOf("--golden");
if (g >= 0) golden = args.splice(g, 2)[1];
const [out, ...files] = args;
if (!out || files.length === 0) {
    process.stderr.write("usage: node gen_oracle.mjs OUT.json MODEL.gguf...\n");
    process.exit(2);
}

// Plain text, whitespace runs, digits, punctuation, code, accents, CJK,
// emoji, invalid-looking markup and the two families' special tokens.
const corpus = [
    "",
    " ",
    "  ",
    "\n",
    "\n\n\t x",
    "Once upon a time",
    "Once upon a time, there was a little girl named Lily.",
    " Lily and Tom went to the park. They saw a big, red ball!",
    "She said: \"Hello, world?\" -- and smiled... :)",
    "Numbers 0 1 12 123 1234 12345 3.14159 1,000,000 2026-12-06",
    "hello   world\t\ttabs\r\nwindows line",
    "def f(x):\n    return x ** 2  # square\n",
    "<html><body class=\"x\">text</body></html>",
    "café naïve résumé Zürich",
    "日本語のテキスト、中文文本。",
    "emoji 😀👍🏽 and symbols ∑ ≈ ∞ → ✓",
    "▁ lower one eighth block",
    "<s>Once</s> <unk> upon",
    "<|im_start|>user\nHi there<|im_end|>\n<|im_start|>assistant\n",
    "<|endoftext|><|fim_prefix|>code<|fim_suffix|>",
    "<think>\nhmm\n</think>\n<tool_call>{\"a\": 1}</tool_call>",
    " </s> ",
    "The the THE tHe",
    "a\u00a0b non-breaking space, zero\u200bwidth",
    "   three leading spaces and trailing   ",
    "don't I'm we'll they're it's O'Neil'S",
    "1234567890 000 99.5% $12.50",
    "e\u0301 combining accent, Å and A\u030a",
    "x<|im_end|>y <|im_start|> z",
    "\u00ff\u0100 \ud83e\udd16 \u2028line separator",
    "<0x41> <unk>< s>",
];

const story =
    "Once upon a time, there was a little girl named Lily. She loved to play outside in the " +
    "park with her friends. One day, she saw a big red ball under a tree. \"Can I play with " +
    "you?\" she asked. The ball was happy and they played all day long.";

const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error });
const result = { node_llama_cpp: "3.22.1", models: {} };
for (const file of files) {
    const model = await llama.loadModel({ modelPath: file, gpuLayers: 0 });
    const tokens = model.tokens;
    const entry = {
        bos: tokens.bos,
        eos: tokens.eos,
        add_bos: tokens.shouldPrependBosToken,
        tokenize: [],
        teacher_forced: null,
    };
    for (const text of corpus)
        for (const special of [false, true])
            entry.tokenize.push({ text, special, ids: Array.from(model.tokenize(text, special)) });

    // The sequence: for a chat-capable vocabulary the story as a chat turn
    // (special tokens parsed), else the story; BOS first when llama.cpp adds it.
    const chat = model.tokenize("<|im_start|>", true).length === 1;
    const text = chat ? `<|im_start|>user\nTell me a story.<|im_end|>\n<|im_start|>assistant\n${story}`
                      : story;
    let seq = Array.from(model.tokenize(text, chat));
    if (tokens.shouldPrependBosToken && tokens.bos != null) seq = [tokens.bos, ...seq];
    seq = seq.slice(0, 96);
    const context = await model.createContext({ contextSize: 256, batchSize: 256, threads: 2 });
    const sequence = context.getSequence();
    const input = seq.map((t) => [t, {
        generateNext: { logits: { filter: { tokens: [], includeTop: 2 } }, totalLogitWeight: true },
    }]);
    const outputs = await sequence.controlledEvaluate(input);
    const positions = outputs.map((o) => {
        const top = [...o.next.logits.entries()].sort((a, b) => b[1] - a[1]);
        const [t1, l1] = top[0], [t2, l2] = top[1];
        const total = o.next.totalLogitWeight; // sum of exp(logit - max logit)
        return { top1: t1, top2: t2, logit1: l1, logit2: l2, p1: 1 / total,
                 p2: Math.exp(l2 - l1) / total };
    });
    entry.teacher_forced = { text, special: chat, tokens: seq, positions };
    await context.dispose();

    // Reference outputs, teacher-forced: llama.cpp's top-1 (and its margin
    // over the top-2, in logits) at each position, for the test to check
    // against run.c's greedy ids (stories260K) or the PyTorch reference's
    // argmax per position (qwen2-tiny, golden/README.md).
    const references = {
        "stories260K-f32.gguf": ["llama2c", "stories260K_", ["empty", "once_upon", "pigs_punct"]],
        "qwen2-tiny-bf16.gguf": ["qwen2-tiny", "", ["p1_english", "p2_code", "p3_chat"]],
    };
    const ref = references[path.basename(file)];
    if (golden && ref) {
        entry.golden = {};
        for (const name of ref[2]) {
            const gj = JSON.parse(readFileSync(path.join(golden, ref[0], `${ref[1]}${name}.json`), "utf8"));
            const ids = [...gj.prompt_token_ids, ...gj.generated_token_ids];
            const ctx = await model.createContext({ contextSize: 512, batchSize: 512, threads: 2 });
            const outs = await ctx.getSequence().controlledEvaluate(ids.map((t) => [t, {
                generateNext: { logits: { filter: { tokens: [], includeTop: 2 } } },
            }]));
            entry.golden[name] = outs.map((o) => {
                const top = [...o.next.logits.entries()].sort((a, b) => b[1] - a[1]);
                return [top[0][0], top[0][1] - top[1][1]];
            });
            await ctx.dispose();
        }
    }
    result.models[path.basename(file)] = entry;
    await model.dispose();
}
writeFileSync(out, JSON.stringify(result, null, 1) + "\n");
