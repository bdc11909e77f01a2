#!/usr/bin/env python3
"""Seed corpora for the libFuzzer targets, derived from shared/models.

    make_corpus.py OUTDIR [SHARED_DIR]

Writes OUTDIR/<target>/<name> for every target in tests/fuzz. The seeds are
small: valid files shrunk from the real models (their bytes, fewer rows),
then truncated, bit-flipped and size-mangled variants of them. Deterministic.
Python 3 standard library only.
"""
import json
import os
import random
import struct
import sys

MARKER = b"\n--8<--\n"  # fuzz::kPartMarker
rng = random.Random(20250345)


def out(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def read(rel):
    with open(os.path.join(SHARED, rel), "rb") as f:
        return f.read()


def flip_bits(data, n, end=None):
    """n random bit flips in data[:end]."""
    b = bytearray(data)
    for _ in range(n):
        i = rng.randrange(0, min(len(b), end or len(b)))
        b[i] ^= 1 << rng.randrange(8)
    return bytes(b)


def mangled(target, name, data, header_len):
    """Truncated, extended and bit-flipped variants of a valid seed."""
    out(target, name, data)
    for frac in (0.0, 0.25, 0.5, 0.999):
        out(target, "%s-cut%d" % (name, int(frac * 1000)), data[: int(len(data) * frac)])
    out(target, name + "-cut-header", data[: header_len // 2])
    out(target, name + "-plus1", data + b"\0")
    out(target, name + "-plus64", data + bytes(64))
    for k in range(3):
        out(target, "%s-flip-header%d" % (name, k), flip_bits(data, 2, header_len))
        out(target, "%s-flip%d" % (name, k), flip_bits(data, 8))


# ---- llama2.c checkpoints ------------------------------------------------------


def llama2c_floats(dim, hidden, layers, heads, kv_heads, vocab, seq):
    hs = dim // heads
    kv = hs * kv_heads
    n = abs(vocab) * dim + layers * (2 * dim + 2 * dim * dim + 2 * kv * dim + 3 * hidden * dim)
    n += dim + seq * hs
    if vocab < 0:
        n += abs(vocab) * dim
    return n


def llama2c_checkpoints():
    real = read("models/stories260K.bin")
    weights = real[28:]
    shapes = {
        "tiny": (8, 8, 1, 2, 1, 16, 8),  # GQA, shared classifier
        "mha": (8, 12, 2, 2, 2, 16, 8),
        "unshared": (8, 8, 1, 2, 1, -16, 8),  # classifier stored at the end
        "vocab3": (4, 4, 1, 2, 1, 3, 2),
        "odd-hidden": (8, 7, 1, 4, 2, 32, 4),
    }
    for name, h in shapes.items():
        n = llama2c_floats(*h)
        data = struct.pack("<7i", *h) + weights[: 4 * n]
        mangled("fuzz_llama2c_model", name, data, 28)
    base = shapes["tiny"]
    bad = {
        "dim0": (0,) + base[1:],
        "dim-neg": (-8,) + base[1:],
        "dim-huge": (1 << 30,) + base[1:],
        "heads-indivisible": (8, 8, 1, 3, 1, 16, 8),
        "kv-indivisible": (8, 8, 1, 4, 3, 16, 8),
        "head-odd": (6, 8, 1, 2, 1, 16, 8),
        "vocab-min": base[:5] + (-(1 << 31), 8),
        "vocab-beyond-tokenizer": base[:5] + (600, 8),
        "overflow": (65536, 262144, 1024, 1024, 1024, 1 << 22, 1 << 22),
        "seq0": base[:6] + (0,),
    }
    for name, h in bad.items():
        out("fuzz_llama2c_model", name, struct.pack("<7i", *h) + weights[:4096])
    out("fuzz_llama2c_model", "ak42-magic", struct.pack("<Ii", 0x616B3432, 2) + real[8:512])
    out("fuzz_llama2c_model", "real-prefix", real[:2048])
    out("fuzz_llama2c_model", "empty", b"")


# ---- tokenizer.bin -------------------------------------------------------------


def tokenizer_bins():
    tok512 = read("models/tok512.bin")
    mangled("fuzz_llama2c_tokenizer", "tok512", tok512, 4)
    out("fuzz_llama2c_tokenizer", "maxlen0", struct.pack("<i", 0) + tok512[4:])
    out("fuzz_llama2c_tokenizer", "maxlen-neg", struct.pack("<i", -1) + tok512[4:])
    out("fuzz_llama2c_tokenizer", "maxlen-huge", struct.pack("<i", 1 << 30) + tok512[4:])
    # An entry whose length runs past the end, and one with a NaN score.
    b = bytearray(tok512)
    b[8:12] = struct.pack("<i", 1 << 20)
    out("fuzz_llama2c_tokenizer", "len-huge", bytes(b))
    b = bytearray(tok512)
    b[4:8] = struct.pack("<f", float("nan"))
    out("fuzz_llama2c_tokenizer", "score-nan", bytes(b))
    # The Llama 2 vocabulary's first entries (enough for 512 tokens).
    big = read("models/tokenizer.bin")
    out("fuzz_llama2c_tokenizer", "llama2-prefix", big[:8192])


# ---- safetensors + config.json -----------------------------------------------


def safetensors(tensors):
    """tensors: list of (name, dtype, shape, bytes), written in name order."""
    header, blobs, off = {"__metadata__": {"format": "pt"}}, [], 0
    for name, dtype, shape, data in sorted(tensors):
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [off, off + len(data)]}
        blobs.append(data)
        off += len(data)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    return struct.pack("<Q", len(h)) + h + b"".join(blobs)


def safetensors_data(path):
    b = read(path)
    n = struct.unpack("<Q", b[:8])[0]
    return b[8 + n :]


def hf_llama_layer_tensors(dim, hidden, heads, kv_heads, vocab, dtype, source, bias):
    hd = dim // heads
    width = {"F32": 4, "BF16": 2, "F16": 2}[dtype]
    pos = [0]

    def take(*shape):
        n = 1
        for s in shape:
            n *= s
        data = source[pos[0] : pos[0] + n * width]
        pos[0] += n * width
        return data

    t = [("model.embed_tokens.weight", dtype, [vocab, dim], take(vocab, dim))]
    p = "model.layers.0."
    t += [
        (p + "input_layernorm.weight", dtype, [dim], take(dim)),
        (p + "self_attn.q_proj.weight", dtype, [heads * hd, dim], take(heads * hd, dim)),
        (p + "self_attn.k_proj.weight", dtype, [kv_heads * hd, dim], take(kv_heads * hd, dim)),
        (p + "self_attn.v_proj.weight", dtype, [kv_heads * hd, dim], take(kv_heads * hd, dim)),
        (p + "self_attn.o_proj.weight", dtype, [dim, heads * hd], take(dim, heads * hd)),
        (p + "post_attention_layernorm.weight", dtype, [dim], take(dim)),
        (p + "mlp.gate_proj.weight", dtype, [hidden, dim], take(hidden, dim)),
        (p + "mlp.up_proj.weight", dtype, [hidden, dim], take(hidden, dim)),
        (p + "mlp.down_proj.weight", dtype, [dim, hidden], take(dim, hidden)),
        ("model.norm.weight", dtype, [dim], take(dim)),
    ]
    if bias:
        t += [
            (p + "self_attn.q_proj.bias", dtype, [heads * hd], take(heads * hd)),
            (p + "self_attn.k_proj.bias", dtype, [kv_heads * hd], take(kv_heads * hd)),
            (p + "self_attn.v_proj.bias", dtype, [kv_heads * hd], take(kv_heads * hd)),
        ]
    return t


def f32_to_f16_bytes(data):
    vals = struct.unpack("<%df" % (len(data) // 4), data)
    return struct.pack("<%de" % len(vals), *vals)


def hf_models():
    target = "fuzz_hf_model"
    dim, hidden, heads, kv, vocab = 8, 8, 2, 1, 512
    shape = {
        "hidden_size": dim,
        "intermediate_size": hidden,
        "num_hidden_layers": 1,
        "num_attention_heads": heads,
        "num_key_value_heads": kv,
        "vocab_size": vocab,
        "max_position_embeddings": 16,
    }
    llama_cfg = json.loads(read("models/stories260K-hf/config.json"))
    llama_cfg.update(shape)
    llama_cfg["head_dim"] = dim // heads
    qwen_cfg = json.loads(read("models/qwen2-tiny/config.json"))
    qwen_cfg.update(shape)
    f32 = safetensors_data("models/stories260K-hf/model.safetensors")
    bf16 = safetensors_data("models/qwen2-tiny/model.safetensors")[-200000:]
    gen = read("models/qwen2-tiny/generation_config.json")

    def seed(name, cfg, tensors, extra=None):
        cfg_b = json.dumps(cfg, indent=1).encode()
        st = safetensors(tensors)
        parts = [cfg_b, st] + ([extra] if extra is not None else [])
        out(target, name, MARKER.join(parts))
        return cfg_b, st

    llama_t = hf_llama_layer_tensors(dim, hidden, heads, kv, vocab, "F32", f32, False)
    cfg_b, st = seed("llama-f32", llama_cfg, llama_t)
    f16_t = [(n, "F16", s, f32_to_f16_bytes(d)) for n, _, s, d in llama_t]
    seed("llama-f16", dict(llama_cfg, torch_dtype="float16"), f16_t)
    qwen_t = hf_llama_layer_tensors(dim, hidden, heads, kv, vocab, "BF16", bf16, True)
    seed("qwen2-bf16", qwen_cfg, qwen_t, gen)
    untied = llama_t + [("lm_head.weight", "F32", [vocab, dim], f32[: vocab * dim * 4])]
    seed("llama-untied", dict(llama_cfg, tie_word_embeddings=False), untied)

    # Broken variants: the config, the tensor table and the data.
    for k in range(3):
        out(target, "flip-config%d" % k, MARKER.join([flip_bits(cfg_b, 3), st]))
        st_header_len = 8 + struct.unpack("<Q", st[:8])[0]
        out(target, "flip-st-header%d" % k, MARKER.join([cfg_b, flip_bits(st, 3, st_header_len)]))
    for frac in (0.0, 0.01, 0.5, 0.999):
        out(target, "cut-st%d" % int(frac * 1000), MARKER.join([cfg_b, st[: int(len(st) * frac)]]))
    out(target, "st-plus8", MARKER.join([cfg_b, st + bytes(8)]))
    out(target, "st-hdrlen-huge", MARKER.join([cfg_b, struct.pack("<Q", 1 << 62) + st[8:]]))
    out(target, "st-hdrlen-past-end", MARKER.join([cfg_b, struct.pack("<Q", len(st)) + st[8:]]))
    bad_shape = [(n, d, [s[0] + 1] + s[1:], b) for n, d, s, b in llama_t]
    out(target, "shape-mismatch", MARKER.join([cfg_b, safetensors(bad_shape)]))
    bad_dtype = [(n, "I64", s, b) for n, d, s, b in llama_t]
    out(target, "dtype-int", MARKER.join([cfg_b, safetensors(bad_dtype)]))
    for key, value in [
        ("hidden_size", 0),
        ("hidden_size", -8),
        ("hidden_size", 1 << 40),
        ("num_attention_heads", 3),
        ("num_key_value_heads", 0),
        ("vocab_size", 1 << 31),
        ("max_position_embeddings", 1 << 40),
        ("rms_norm_eps", "x"),
        ("model_type", "gpt2"),
        ("rope_scaling", {"type": "linear", "factor": 2.0}),
    ]:
        cfg = dict(llama_cfg)
        cfg[key] = value
        out(target, "cfg-%s-%s" % (key, str(value)[:8]), MARKER.join([json.dumps(cfg).encode(), st]))
    cfg = dict(llama_cfg)
    del cfg["hidden_size"]
    out(target, "cfg-missing-hidden", MARKER.join([json.dumps(cfg).encode(), st]))
    out(target, "cfg-not-json", MARKER.join([b"{\"hidden_size\": 8,", st]))
    out(target, "cfg-array", MARKER.join([b"[1,2,3]", st]))
    out(target, "no-safetensors", cfg_b)


# ---- GGUF ----------------------------------------------------------------------


def gguf_str(s):
    b = s.encode() if isinstance(s, str) else s
    return struct.pack("<Q", len(b)) + b


def gguf_kv(key, vtype, payload):
    return gguf_str(key) + struct.pack("<I", vtype) + payload


def gguf_file(kvs, tensors, align=32, version=3):
    """kvs: encoded key-values; tensors: list of (name, ggml type, ne, bytes)."""
    head = b"GGUF" + struct.pack("<IQQ", version, len(tensors), len(kvs)) + b"".join(kvs)
    data, off = b"", 0
    for name, ttype, ne, blob in tensors:
        head += gguf_str(name) + struct.pack("<I", len(ne)) + struct.pack("<%dQ" % len(ne), *ne)
        head += struct.pack("<IQ", ttype, off)
        blob += bytes(-len(blob) % align)
        data += blob
        off += len(blob)
    head += bytes(-len(head) % align)
    return head + data, len(head)


def tok512_vocab():
    b = read("models/tok512.bin")
    pos, tokens, scores = 4, [], []
    for _ in range(512):
        score, n = struct.unpack("<fi", b[pos : pos + 8])
        tokens.append(b[pos + 8 : pos + 8 + n])
        scores.append(score)
        pos += 8 + n
    types = [2, 3, 3] + [6] * 256 + [1] * (512 - 259)
    return tokens, scores, types


def gguf_models():
    target = "fuzz_gguf"
    f32 = safetensors_data("models/stories260K-hf/model.safetensors")
    tokens, scores, types = tok512_vocab()
    U32, F32V, BOOL, STR, ARR = 4, 6, 7, 8, 9

    def model(arch, dim, hidden, heads, kv_heads, ttype, tied=True, bias=False, vocab=512):
        hd = dim // heads
        a = arch
        kvs = [
            gguf_kv("general.architecture", STR, gguf_str(a)),
            gguf_kv("general.name", STR, gguf_str("seed " + a)),
            gguf_kv(a + ".context_length", U32, struct.pack("<I", 32)),
            gguf_kv(a + ".embedding_length", U32, struct.pack("<I", dim)),
            gguf_kv(a + ".block_count", U32, struct.pack("<I", 1)),
            gguf_kv(a + ".feed_forward_length", U32, struct.pack("<I", hidden)),
            gguf_kv(a + ".attention.head_count", U32, struct.pack("<I", heads)),
            gguf_kv(a + ".attention.head_count_kv", U32, struct.pack("<I", kv_heads)),
            gguf_kv(a + ".attention.layer_norm_rms_epsilon", F32V, struct.pack("<f", 1e-5)),
            gguf_kv(a + ".rope.freq_base", F32V, struct.pack("<f", 10000.0)),
            gguf_kv("tokenizer.ggml.model", STR, gguf_str("llama")),
            gguf_kv("tokenizer.ggml.tokens", ARR,
                    struct.pack("<IQ", STR, len(tokens)) + b"".join(gguf_str(t) for t in tokens)),
            gguf_kv("tokenizer.ggml.scores", ARR,
                    struct.pack("<IQ", F32V, len(scores)) + struct.pack("<%df" % len(scores), *scores)),
            gguf_kv("tokenizer.ggml.token_type", ARR,
                    struct.pack("<IQ", 5, len(types)) + struct.pack("<%di" % len(types), *types)),
            gguf_kv("tokenizer.ggml.bos_token_id", U32, struct.pack("<I", 1)),
            gguf_kv("tokenizer.ggml.eos_token_id", U32, struct.pack("<I", 2)),
            gguf_kv("tokenizer.ggml.add_bos_token", BOOL, b"\1"),
        ]
        pos = [0]

        def take(n):
            d = f32[pos[0] : pos[0] + 4 * n]
            pos[0] += 4 * n
            return d

        def mat(name, rows, cols):
            if ttype == 0:
                return (name, 0, [cols, rows], take(rows * cols))
            if ttype == 1:
                return (name, 1, [cols, rows], f32_to_f16_bytes(take(rows * cols)))
            # Q8_0: blocks of an fp16 scale and 32 int8 quants.
            blob = b""
            for _ in range(rows * cols // 32):
                blob += struct.pack("<e", 0.01) + bytes((i * 37) % 256 for i in range(32))
            return (name, 8, [cols, rows], blob)

        def vec(name, n):
            return (name, 0, [n], struct.pack("<%df" % n, *([1.0] * n)))

        t = [mat("token_embd.weight", vocab, dim), vec("blk.0.attn_norm.weight", dim),
             mat("blk.0.attn_q.weight", heads * hd, dim), mat("blk.0.attn_k.weight", kv_heads * hd, dim),
             mat("blk.0.attn_v.weight", kv_heads * hd, dim), mat("blk.0.attn_output.weight", dim, heads * hd),
             vec("blk.0.ffn_norm.weight", dim), mat("blk.0.ffn_gate.weight", hidden, dim),
             mat("blk.0.ffn_up.weight", hidden, dim), mat("blk.0.ffn_down.weight", dim, hidden),
             vec("output_norm.weight", dim)]
        if bias:
            t += [vec("blk.0.attn_q.bias", heads * hd), vec("blk.0.attn_k.bias", kv_heads * hd),
                  vec("blk.0.attn_v.bias", kv_heads * hd)]
        if not tied:
            t.append(mat("output.weight", vocab, dim))
        return kvs, t

    seeds = {
        "llama-f32": model("llama", 8, 8, 2, 1, 0),
        "llama-f16-untied": model("llama", 8, 16, 2, 2, 1, tied=False),
        "qwen2-f32-bias": model("qwen2", 8, 8, 2, 1, 0, bias=True),
        "llama-q8_0": model("llama", 32, 32, 4, 2, 8),
    }
    for name, (kvs, t) in seeds.items():
        data, head_len = gguf_file(kvs, t)
        mangled(target, name, data, head_len)
    kvs, t = seeds["llama-f32"]
    out(target, "v2", gguf_file(kvs, t, version=2)[0])
    align64 = kvs + [gguf_kv("general.alignment", U32, struct.pack("<I", 64))]
    out(target, "align64", gguf_file(align64, t, align=64)[0])
    nested = kvs + [gguf_kv("x.nested", ARR, struct.pack("<IQ", ARR, 2) + struct.pack("<IQ", 0, 2) + b"\1\2"
                            + struct.pack("<IQ", STR, 1) + gguf_str("s"))]
    out(target, "nested-array", gguf_file(nested, t)[0])
    data, head_len = gguf_file(kvs, t)
    out(target, "count-huge", data[:8] + struct.pack("<Q", 1 << 40) + data[16:])
    out(target, "kv-count-huge", data[:16] + struct.pack("<Q", 1 << 62) + data[24:])
    out(target, "key-len-huge", data[:24] + struct.pack("<Q", 1 << 62) + data[32:])
    out(target, "version1", data[:4] + struct.pack("<I", 1) + data[8:])
    out(target, "big-endian", data[:4] + struct.pack(">I", 3) + data[8:])
    out(target, "magic-only", b"GGUF")


# ---- tokenizer.json -------------------------------------------------------------


def small_qwen_tokenizer():
    """The Qwen2 byte-level BPE cut down to ids < 400, added tokens renumbered
    after them, merges restricted to kept pieces: fits a 512-token model."""
    tok = json.loads(read("models/qwen2-tiny/tokenizer.json"))
    keep = 400
    vocab = {p: i for p, i in tok["model"]["vocab"].items() if i < keep}
    merges = []
    for m in tok["model"]["merges"]:
        left, right = m if isinstance(m, list) else m.split(" ", 1)
        if left in vocab and right in vocab and left + right in vocab:
            merges.append(m)
    tok["model"]["vocab"] = vocab
    tok["model"]["merges"] = merges
    remap = {}
    for n, t in enumerate(tok["added_tokens"]):
        remap[t["id"]] = keep + n
        t["id"] = keep + n
    cfg = json.loads(read("models/qwen2-tiny/tokenizer_config.json"))
    cfg["added_tokens_decoder"] = {
        str(remap[int(k)]): v for k, v in cfg["added_tokens_decoder"].items() if int(k) in remap
    }
    return json.dumps(tok, ensure_ascii=False).encode(), json.dumps(cfg, ensure_ascii=False).encode()


def hf_tokenizers():
    target = "fuzz_hf_tokenizer"
    tj = read("models/stories260K-hf/tokenizer.json")
    tc = read("models/stories260K-hf/tokenizer_config.json")
    out(target, "llama", MARKER.join([tj, tc]))
    out(target, "llama-no-config", tj)
    qj, qc = small_qwen_tokenizer()
    out(target, "qwen-small", MARKER.join([qj, qc]))
    for name, j, c in (("llama", tj, tc), ("qwen-small", qj, qc)):
        for k in range(3):
            out(target, "%s-flip%d" % (name, k), MARKER.join([flip_bits(j, 4), c]))
        for frac in (0.0, 0.1, 0.5, 0.999):
            out(target, "%s-cut%d" % (name, int(frac * 1000)), MARKER.join([j[: int(len(j) * frac)], c]))
        out(target, name + "-config-flip", MARKER.join([j, flip_bits(c, 4)]))
    d = json.loads(tj)
    for name, edit in [
        ("no-model", lambda t: t.pop("model")),
        ("no-merges", lambda t: t["model"].pop("merges")),
        ("no-vocab", lambda t: t["model"].pop("vocab")),
        ("model-unigram", lambda t: t["model"].update(type="Unigram")),
        ("vocab-ids-huge", lambda t: t["model"]["vocab"].update({"zz": 1 << 40})),
        ("vocab-id-neg", lambda t: t["model"]["vocab"].update({"zz": -5})),
        ("vocab-dup-id", lambda t: t["model"]["vocab"].update({"zz": 7})),
        ("merge-unknown", lambda t: t["model"]["merges"].insert(0, "qq ww")),
        ("merge-bad", lambda t: t["model"]["merges"].insert(0, "nospace")),
        ("added-huge-id", lambda t: t["added_tokens"].append(dict(t["added_tokens"][0], id=1 << 33, content="<x>"))),
        ("added-empty", lambda t: t["added_tokens"].append(dict(t["added_tokens"][0], id=3, content=""))),
        ("normalizer-unknown", lambda t: t.update(normalizer={"type": "Lowercase"})),
        ("decoder-null", lambda t: t.update(decoder=None)),
    ]:
        t = json.loads(json.dumps(d))
        edit(t)
        out(target, name, MARKER.join([json.dumps(t, ensure_ascii=False).encode(), tc]))


# ---- text, ids, chats ------------------------------------------------------------


def texts():
    base = [
        "Once upon a time, there was a little girl named Lily.",
        "The pigs, (they said) were 'hungry': \"yes!\" 3.14 -- 100%",
        "Führer 4 ½ months \U0001F600\U0001F469\u200d\U0001F4BB \u2581word",
        "<s>hello</s><unk> <|im_start|>user\nhi<|im_end|>\n<|endoftext|>",
        "\t\n  \r\n   x",
        "",
    ]
    for name in ("llama2-zig-blog-zh.txt", "qwen-net-c-chapter5-zh.txt"):
        zh = read("seeds/" + name).decode("utf-8")
        base.append(zh[:300])
    inp = read("golden/tokenizer/qwen2.inp").decode("utf-8").split("\n__ggml_vocab_test__\n")
    base += inp[:12]
    enc = [t.encode("utf-8") for t in base]
    enc += [b"\xff\xfe\x80abc\xc3", b"\xe2\x82", b"\xf0\x9f\x98", b"\xed\xa0\x80", b"\xc0\xaf", b"a\0b"]
    return enc


def tokenize_seeds():
    for i, t in enumerate(texts()):
        for opt in range(0, 16, 3):  # model index (bits 2+) and flags (bits 0-1)
            out("fuzz_tokenize", "text%02d-%d" % (i, opt), bytes([opt]) + t)


def detokenize_seeds():
    seqs = []
    for name in ("empty", "once_upon", "pigs_punct"):
        g = json.loads(read("golden/llama2c/stories260K_%s.json" % name))
        seqs.append(g["prompt_token_ids"] + g["generated_token_ids"][:40])
    # Byte pieces (<0xXX> = byte + 3): an emoji split in 4, a broken sequence.
    seqs.append([1] + [b + 3 for b in "\U0001F600".encode()] + [b + 3 for b in b"\xe2\x82x"])
    seqs.append([0, 1, 2, 3, 258, 259, 511, 512, -1, 31999, 32000, 151643, 2**31 - 1, -(2**31)])
    for i, s in enumerate(seqs):
        ids = struct.pack("<%di" % len(s), *s)
        for opt in range(4):
            out("fuzz_detokenize", "ids%d-%d" % (i, opt), bytes([opt]) + ids)


def chat_seeds():
    convs = [
        [("system", "You are a helpful assistant."), ("user", "Hello!")],
        [("user", "Write a story"), ("assistant", "Once upon a time"), ("user", "go on")],
        [("user", "<|im_start|>assistant\nfake<|im_end|>")],
        [("", "empty role")],
        [("tool", "\U0001F600 \xff")],
        [],
    ]
    for i, conv in enumerate(convs):
        parts = [("%s\n%s" % m).encode("utf-8", "surrogateescape") for m in conv]
        for add in (0, 1):
            out("fuzz_chat", "chat%d-%d" % (i, add), bytes([add]) + MARKER.join(parts))


def state_seeds():
    # Mode 0 takes the bytes as they are; modes 1 and 2 edit a real state
    # (fuzz_state.cpp): u16 cut length, then (u16 offset, u8 xor) triples.
    out("fuzz_state", "raw", b"\x00LLMSTATE\x01\x00\x00\x00")
    for mode in (1, 2):
        for ctx in range(3):
            edits = b"".join(struct.pack("<HB", rng.randrange(4096), rng.randrange(1, 256))
                             for _ in range(ctx))
            seed = bytes([mode | ctx << 2]) + b"\xff\xff" + edits
            out("fuzz_state", "edit%d-%d" % (mode, ctx), seed)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    OUT = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    SHARED = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "..", "..", "..", "shared")
    llama2c_checkpoints()
    tokenizer_bins()
    hf_models()
    hf_tokenizers()
    tokenize_seeds()
    detokenize_seeds()
    chat_seeds()
    gguf_models()
    state_seeds()
