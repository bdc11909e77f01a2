#include "gguf_writer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/mapped_file.h"
#include "kernels/float_convert.h"
#include "kernels/quant.h"
#include "kernels/quant_blocks.h"
#include "model_sources.h"

namespace llm::gen {

namespace {

using Json = nlohmann::json;

constexpr uint32_t kAlignment = 32;

// GGUF metadata value types (the GGUF specification, gguf.md).
enum : uint32_t {
    kU8 = 0,
    kI32 = 5,
    kU32 = 4,
    kF32 = 6,
    kBool = 7,
    kString = 8,
    kArray = 9,
};

// ggml's tensor type ids.
uint32_t ggml_type_id(DType t) {
    switch (t) {
    case DType::F32: return 0;
    case DType::F16: return 1;
    case DType::Q4_0: return 2;
    case DType::Q4_1: return 3;
    case DType::Q5_0: return 6;
    case DType::Q5_1: return 7;
    case DType::Q8_0: return 8;
    case DType::Q4_K: return 12;
    case DType::Q5_K: return 13;
    case DType::Q6_K: return 14;
    case DType::BF16: return 30;
    }
    fail(LLM_ERR_INTERNAL, "no GGUF type for ", dtype_name(t));
}

struct TypeName {
    const char *name;
    DType base;
    uint32_t file_type; // llama_ftype: general.file_type
    bool mix;           // q4_k_m
};

const TypeName kTypes[] = {
    {"f32", DType::F32, 0, false},    {"f16", DType::F16, 1, false},
    {"bf16", DType::BF16, 32, false}, {"q8_0", DType::Q8_0, 7, false},
    {"q4_0", DType::Q4_0, 2, false},  {"q4_1", DType::Q4_1, 3, false},
    {"q5_0", DType::Q5_0, 8, false},  {"q5_1", DType::Q5_1, 9, false},
    {"q4_k", DType::Q4_K, 14, false}, {"q5_k", DType::Q5_K, 16, false},
    {"q6_k", DType::Q6_K, 18, false}, {"q4_k_m", DType::Q4_K, 15, true},
};

const TypeName &find_type(const std::string &name) {
    for (const TypeName &t : kTypes)
        if (name == t.name) return t;
    fail(LLM_ERR_INVALID_ARGUMENT, "unknown GGUF type ", name);
}

int64_t block_values(DType t) {
    return t == DType::Q8_0 ? 32 : dtype_block_values(t);
}

uint64_t row_bytes(DType t, int64_t n) {
    switch (t) {
    case DType::F32: return 4 * static_cast<uint64_t>(n);
    case DType::F16:
    case DType::BF16: return 2 * static_cast<uint64_t>(n);
    case DType::Q8_0: return kQ8_0FileBytes * static_cast<uint64_t>(n / 32);
    default: return block_type_bytes(t) * static_cast<uint64_t>(n / dtype_block_values(t));
    }
}

// llama-quantize's per-matrix fallback for a row length the type's block
// does not divide (see gguf_writer.h).
DType fit(DType t, int64_t cols) {
    if (cols % block_values(t) == 0) return t;
    DType next = DType::F16;
    if (t == DType::Q4_K) next = DType::Q5_0;
    if (t == DType::Q5_K) next = DType::Q5_1;
    if (t == DType::Q6_K) next = DType::Q8_0;
    return cols % block_values(next) == 0 ? next : DType::F16;
}

bool use_more_bits(int i, int n) {
    return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
}

bool ends_with(const std::string &s, const char *suffix) {
    const size_t n = std::strlen(suffix);
    return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

// HF name -> llama.cpp name, and the layer (-1 outside the blocks). Gemma's
// post_attention_layernorm is the attention output's norm, its FFN input
// norm pre_feedforward_layernorm.
std::string gguf_name(const std::string &hf, bool gemma3, int *layer) {
    *layer = -1;
    if (hf == "model.embed_tokens.weight") return "token_embd.weight";
    if (hf == "model.norm.weight") return "output_norm.weight";
    if (hf == "lm_head.weight") return "output.weight";
    const std::string prefix = "model.layers.";
    if (hf.compare(0, prefix.size(), prefix) == 0) {
        const size_t dot = hf.find('.', prefix.size());
        *layer = std::atoi(hf.substr(prefix.size(), dot - prefix.size()).c_str());
        const std::string rest = hf.substr(dot + 1);
        static const std::map<std::string, std::string> names = {
            {"input_layernorm.weight", "attn_norm.weight"},
            {"self_attn.q_proj.weight", "attn_q.weight"},
            {"self_attn.k_proj.weight", "attn_k.weight"},
            {"self_attn.v_proj.weight", "attn_v.weight"},
            {"self_attn.q_norm.weight", "attn_q_norm.weight"},
            {"self_attn.k_norm.weight", "attn_k_norm.weight"},
            {"self_attn.q_proj.bias", "attn_q.bias"},
            {"self_attn.k_proj.bias", "attn_k.bias"},
            {"self_attn.v_proj.bias", "attn_v.bias"},
            {"self_attn.o_proj.weight", "attn_output.weight"},
            {"post_attention_layernorm.weight", "ffn_norm.weight"},
            {"mlp.gate_proj.weight", "ffn_gate.weight"},
            {"mlp.up_proj.weight", "ffn_up.weight"},
            {"mlp.down_proj.weight", "ffn_down.weight"},
        };
        static const std::map<std::string, std::string> gemma3_names = {
            {"post_attention_layernorm.weight", "post_attention_norm.weight"},
            {"pre_feedforward_layernorm.weight", "ffn_norm.weight"},
            {"post_feedforward_layernorm.weight", "post_ffw_norm.weight"},
        };
        auto it = gemma3_names.find(rest);
        if (!gemma3 || it == gemma3_names.end()) it = names.find(rest);
        if (it != names.end()) return "blk." + std::to_string(*layer) + "." + it->second;
    }
    fail(LLM_ERR_INTERNAL, "no GGUF name for tensor ", hf);
}

// The metadata section, built in memory.
class Kv {
  public:
    uint64_t count = 0;
    std::string bytes;

    void raw(const void *p, size_t n) { bytes.append(static_cast<const char *>(p), n); }
    template <class T> void pod(T v) { raw(&v, sizeof v); }
    void str(const std::string &s) {
        pod<uint64_t>(s.size());
        raw(s.data(), s.size());
    }
    void key(const std::string &k, uint32_t type) {
        ++count;
        str(k);
        pod<uint32_t>(type);
    }
    void u32(const std::string &k, uint32_t v) {
        key(k, kU32);
        pod(v);
    }
    void i32(const std::string &k, int32_t v) {
        key(k, kI32);
        pod(v);
    }
    void f32(const std::string &k, float v) {
        key(k, kF32);
        pod(v);
    }
    void boolean(const std::string &k, bool v) {
        key(k, kBool);
        pod<uint8_t>(v ? 1 : 0);
    }
    void string(const std::string &k, const std::string &v) {
        key(k, kString);
        str(v);
    }
    void strings(const std::string &k, const std::vector<std::string> &v) {
        key(k, kArray);
        pod<uint32_t>(kString);
        pod<uint64_t>(v.size());
        for (const std::string &s : v)
            str(s);
    }
    void floats(const std::string &k, const std::vector<float> &v) {
        key(k, kArray);
        pod<uint32_t>(kF32);
        pod<uint64_t>(v.size());
        raw(v.data(), v.size() * 4);
    }
    void ints(const std::string &k, const std::vector<int32_t> &v) {
        key(k, kArray);
        pod<uint32_t>(kI32);
        pod<uint64_t>(v.size());
        raw(v.data(), v.size() * 4);
    }
};

// llama.cpp's token types (llama_token_type / gguf.TokenType).
enum : int32_t {
    kNormal = 1,
    kUnknown = 2,
    kControl = 3,
    kUserDefined = 4,
    kUnused = 5,
    kByte = 6,
};

std::string text_of(const Json &v) { // "x" or {"content": "x"}
    if (v.is_string()) return v.get<std::string>();
    if (v.is_object() && v.contains("content") && v["content"].is_string())
        return v["content"].get<std::string>();
    return "";
}

// The tokenizer of a llama2.c tokenizer.bin, as llama.cpp's SentencePiece
// ("llama") vocabulary: pieces with U+2581 for the space, scores, types.
void llama2c_tokenizer_kv(Kv &kv, const std::string &path, int32_t vocab) {
    auto file = MappedFile::open(path);
    const uint8_t *p = file->data(), *end = p + file->size();
    auto take = [&](void *dst, size_t n) {
        if (static_cast<size_t>(end - p) < n) fail(LLM_ERR_FORMAT, path, ": truncated");
        std::memcpy(dst, p, n);
        p += n;
    };
    int32_t max_len = 0;
    take(&max_len, 4);
    std::vector<std::string> tokens;
    std::vector<float> scores;
    std::vector<int32_t> types;
    for (int32_t id = 0; id < vocab; ++id) {
        float score = 0;
        int32_t len = 0;
        take(&score, 4);
        take(&len, 4);
        if (len < 0 || len > 1 << 16) fail(LLM_ERR_FORMAT, path, ": bad token length");
        std::string piece(static_cast<size_t>(len), '\0');
        take(&piece[0], piece.size());
        int32_t type = kNormal;
        if (id == 0) {
            piece = "<unk>";
            type = kUnknown;
        } else if (id == 1 || id == 2) {
            piece = id == 1 ? "<s>" : "</s>";
            type = kControl;
        } else if (piece.size() == 6 && piece.compare(0, 3, "<0x") == 0 && piece[5] == '>') {
            type = kByte;
        } else {
            std::string out;
            for (char c : piece)
                out += c == ' ' ? std::string("\xe2\x96\x81") : std::string(1, c);
            piece = out;
        }
        tokens.push_back(piece);
        scores.push_back(score);
        types.push_back(type);
    }
    kv.string("tokenizer.ggml.model", "llama");
    kv.strings("tokenizer.ggml.tokens", tokens);
    kv.floats("tokenizer.ggml.scores", scores);
    kv.ints("tokenizer.ggml.token_type", types);
    kv.u32("tokenizer.ggml.bos_token_id", 1);
    kv.u32("tokenizer.ggml.eos_token_id", 2);
    kv.u32("tokenizer.ggml.unknown_token_id", 0);
    kv.boolean("tokenizer.ggml.add_bos_token", true);
    kv.boolean("tokenizer.ggml.add_eos_token", false);
}

// convert_hf_to_gguf's does_token_look_special: added tokens written like
// <|...|> count as control tokens even when not marked special.
bool looks_special(const std::string &t) {
    if (t == "<pad>" || t == "<mask>" || t == "<2mass>" || t == "[@BOS@]") return true;
    if (t.size() >= 4 && t.compare(0, 2, "<|") == 0 && t.compare(t.size() - 2, 2, "|>") == 0)
        return true;
    const std::string l = "<\xef\xbd\x9c", r = "\xef\xbd\x9c>"; // <｜ ... ｜>
    return t.size() >= l.size() + r.size() && t.compare(0, l.size(), l) == 0 &&
           t.compare(t.size() - r.size(), r.size(), r) == 0;
}

// A byte-level BPE tokenizer.json as llama.cpp's "gpt2" vocabulary, as
// llama.cpp's convert_hf_to_gguf writes it: ids without a token become
// [PADi] (unused), added tokens are control (special, or looking special)
// or user-defined; merges as "left right".
void hf_tokenizer_kv(Kv &kv, const std::string &dir, const ModelSpec &spec) {
    auto read_json = [](const std::string &path, bool required) -> Json {
        std::FILE *f = std::fopen(path.c_str(), "rb");
        if (!f) {
            if (required) fail(LLM_ERR_IO, path, ": cannot open");
            return Json();
        }
        std::fclose(f);
        auto file = MappedFile::open(path);
        const char *p = reinterpret_cast<const char *>(file->data());
        return Json::parse(p, p + file->size());
    };
    const Json tj = read_json(path_join(dir, "tokenizer.json"), true);
    const Json cfg = read_json(path_join(dir, "tokenizer_config.json"), false);
    const Json &model = tj["model"];
    if (!model.is_object() || model.value("type", "") != "BPE")
        fail(LLM_ERR_UNSUPPORTED, dir, ": only BPE tokenizer.json files are written to GGUF");
    const int32_t n = spec.config.vocab_size;
    std::vector<std::string> tokens(static_cast<size_t>(n));
    std::vector<int32_t> types(static_cast<size_t>(n), kUnused);
    std::vector<bool> have(static_cast<size_t>(n), false);
    std::map<std::string, int32_t> ids;
    for (auto it = model["vocab"].begin(); it != model["vocab"].end(); ++it) {
        const int32_t id = it.value().get<int32_t>();
        if (id < 0 || id >= n) fail(LLM_ERR_INVALID_ARGUMENT, dir, ": token id beyond the vocab");
        tokens[static_cast<size_t>(id)] = it.key();
        types[static_cast<size_t>(id)] = kNormal;
        have[static_cast<size_t>(id)] = true;
        ids[it.key()] = id;
    }
    if (tj.contains("added_tokens"))
        for (const Json &a : tj["added_tokens"]) {
            const int32_t id = a["id"].get<int32_t>();
            if (id < 0 || id >= n)
                fail(LLM_ERR_INVALID_ARGUMENT, dir, ": token id beyond the vocab");
            std::string content = a["content"].get<std::string>();
            const bool special = a.value("special", false) || looks_special(content);
            if (!special) { // user-defined tokens hold spaces, not U+2581
                std::string out;
                for (size_t i = 0; i < content.size(); ++i)
                    if (content.compare(i, 3, "\xe2\x96\x81") == 0) {
                        out += ' ';
                        i += 2;
                    } else {
                        out += content[i];
                    }
                content = out;
            }
            tokens[static_cast<size_t>(id)] = content;
            types[static_cast<size_t>(id)] = special ? kControl : kUserDefined;
            have[static_cast<size_t>(id)] = true;
            ids[a["content"].get<std::string>()] = id;
        }
    for (int32_t i = 0; i < n; ++i)
        if (!have[static_cast<size_t>(i)])
            tokens[static_cast<size_t>(i)] = "[PAD" + std::to_string(i) + "]";
    std::vector<std::string> merges;
    for (const Json &m : model["merges"])
        merges.push_back(m.is_string() ? m.get<std::string>()
                                       : m[0].get<std::string>() + " " + m[1].get<std::string>());
    kv.string("tokenizer.ggml.model", "gpt2");
    kv.string("tokenizer.ggml.pre",
              spec.config.arch == "qwen2" || spec.config.arch == "qwen3" ? "qwen2" : "default");
    kv.strings("tokenizer.ggml.tokens", tokens);
    kv.ints("tokenizer.ggml.token_type", types);
    kv.strings("tokenizer.ggml.merges", merges);
    auto id_of = [&](const char *field) -> int32_t {
        if (!cfg.is_object() || !cfg.contains(field)) return -1;
        auto it = ids.find(text_of(cfg[field]));
        return it == ids.end() ? -1 : it->second;
    };
    // Like gguf-py's SpecialVocab: tokenizer_config.json first, the model's
    // ids where it names none (the source's, else the folder's config.json).
    int32_t bos = id_of("bos_token"), eos = id_of("eos_token");
    if (bos < 0) bos = spec.bos;
    const Json model_cfg = read_json(path_join(dir, "config.json"), false);
    if (bos < 0 && model_cfg.is_object() && model_cfg.contains("bos_token_id") &&
        model_cfg["bos_token_id"].is_number_integer())
        bos = model_cfg["bos_token_id"].get<int32_t>();
    if (eos < 0 && !spec.eos.empty()) eos = spec.eos[0];
    const int32_t pad = id_of("pad_token");
    if (bos >= 0) kv.u32("tokenizer.ggml.bos_token_id", static_cast<uint32_t>(bos));
    if (eos >= 0) kv.u32("tokenizer.ggml.eos_token_id", static_cast<uint32_t>(eos));
    if (pad >= 0) kv.u32("tokenizer.ggml.padding_token_id", static_cast<uint32_t>(pad));
    const bool add_bos = cfg.is_object() && cfg.value("add_bos_token", false);
    kv.boolean("tokenizer.ggml.add_bos_token", add_bos);
    if (cfg.is_object() && cfg.contains("chat_template") && cfg["chat_template"].is_string())
        kv.string("tokenizer.chat_template", cfg["chat_template"].get<std::string>());
}

struct FileCloser {
    void operator()(std::FILE *f) const { std::fclose(f); }
};

struct Planned {
    const TensorSource *source;
    std::string name;
    int layer;
    DType type;
    bool rope_rows; // q/k of a llama model: rows to interleaved order
    float add = 0;  // added to every value (Gemma's norms: w + 1)
    uint64_t offset = 0, bytes = 0;
};

uint64_t padded(uint64_t n) {
    return (n + kAlignment - 1) / kAlignment * kAlignment;
}

} // namespace

std::vector<std::string> gguf_type_names() {
    std::vector<std::string> out;
    for (const TypeName &t : kTypes)
        out.push_back(t.name);
    return out;
}

void write_gguf(const std::string &path, const ModelSpec &spec,
                const std::vector<TensorSource> &tensors, const GgufWriteOptions &options) {
    const ModelConfig &c = spec.config;
    const TypeName &type = find_type(options.type);
    const bool llama = c.arch == "llama", gemma3 = c.arch == "gemma3";
    if (!llama && !gemma3 && c.arch != "qwen2" && c.arch != "qwen3")
        fail(LLM_ERR_UNSUPPORTED,
             "GGUF files are written for llama, qwen2, qwen3 and gemma3 models");

    // Llama 3's rope scaling: llama.cpp's converter stores the divisor of
    // each RoPE frequency as the tensor rope_freqs.weight (first here).
    std::vector<TensorSource> extra;
    if (!c.rope_freq_divisors.empty()) {
        const std::vector<float> d = c.rope_freq_divisors;
        extra.push_back({"rope_freqs.weight",
                         {static_cast<int64_t>(d.size())},
                         [d](int64_t, float *out) { std::copy(d.begin(), d.end(), out); }});
    }
    std::vector<const TensorSource *> all;
    for (const TensorSource &t : extra)
        all.push_back(&t);
    for (const TensorSource &t : tensors)
        all.push_back(&t);

    // Which type each tensor takes.
    std::vector<Planned> plan;
    for (const TensorSource *source : all) {
        const TensorSource &t = *source;
        Planned p{&t, "", -1, DType::F32, false};
        p.name = t.name == "rope_freqs.weight" ? t.name : gguf_name(t.name, gemma3, &p.layer);
        // llama.cpp's converter stores Gemma's norm weights w as 1 + w, the gain.
        if (gemma3 && ends_with(p.name, "norm.weight")) p.add = hf_norm_shift(c);
        const bool matrix = t.shape.size() == 2;
        if (matrix) {
            DType want = type.base;
            if (type.mix) {
                const bool output =
                    p.name == "output.weight" || (spec.tied && p.name == "token_embd.weight");
                if (output)
                    want = t.cols() % 256 == 0 ? DType::Q6_K : DType::Q8_0;
                else if ((ends_with(p.name, "attn_v.weight") ||
                          ends_with(p.name, "ffn_down.weight")) &&
                         use_more_bits(p.layer, c.n_layers))
                    want = DType::Q6_K;
            }
            p.type = fit(want, t.cols());
            p.rope_rows =
                llama && (ends_with(p.name, "attn_q.weight") || ends_with(p.name, "attn_k.weight"));
        }
        p.bytes = row_bytes(p.type, t.cols()) * static_cast<uint64_t>(t.rows());
        plan.push_back(std::move(p));
    }
    uint64_t offset = 0;
    for (Planned &p : plan) {
        p.offset = offset;
        offset = padded(offset + p.bytes);
    }

    Kv kv;
    const std::string a = c.arch;
    kv.string("general.architecture", a);
    kv.string("general.name", options.name.empty() ? a : options.name);
    kv.u32("general.alignment", kAlignment);
    kv.u32("general.file_type", type.file_type);
    kv.u32(a + ".context_length", static_cast<uint32_t>(c.max_seq_len));
    kv.u32(a + ".embedding_length", static_cast<uint32_t>(c.dim));
    kv.u32(a + ".block_count", static_cast<uint32_t>(c.n_layers));
    kv.u32(a + ".feed_forward_length", static_cast<uint32_t>(c.hidden_dim));
    kv.u32(a + ".attention.head_count", static_cast<uint32_t>(c.n_heads));
    kv.u32(a + ".attention.head_count_kv", static_cast<uint32_t>(c.n_kv_heads));
    if (c.head_dim * c.n_heads != c.dim || c.arch == "qwen3" || gemma3) {
        kv.u32(a + ".attention.key_length", static_cast<uint32_t>(c.head_dim));
        kv.u32(a + ".attention.value_length", static_cast<uint32_t>(c.head_dim));
    }
    kv.f32(a + ".attention.layer_norm_rms_epsilon", c.norm_eps);
    kv.f32(a + ".rope.freq_base", c.rope_theta);
    kv.u32(a + ".rope.dimension_count", static_cast<uint32_t>(c.head_dim));
    kv.u32(a + ".vocab_size", static_cast<uint32_t>(c.vocab_size));
    if (gemma3) {
        // llama.cpp's Gemma 3: one window for the sliding layers (every layer
        // but each 6th), local RoPE theta 10000, the global one above.
        int32_t window = 0;
        for (int32_t i = 0; i < c.n_layers; ++i) {
            const LayerAttention l = c.attention_of(i);
            const bool global = i % 6 == 5;
            if (global != (l.window == 0) || (window && l.window && l.window != window) ||
                c.layer_rope_theta(i) != (global ? c.rope_theta : 10000.0f))
                fail(LLM_ERR_UNSUPPORTED, "GGUF (llama.cpp's gemma3) holds Gemma 3's layer "
                                          "pattern only: a 10000-theta window on each layer "
                                          "but every 6th");
            if (l.window) window = l.window;
        }
        kv.u32(a + ".attention.sliding_window", static_cast<uint32_t>(window));
        // Nor does it hold query_pre_attn_scalar: llama.cpp scales by
        // 1/sqrt(head_dim), 1/sqrt(dim / n_heads) for the 62-layer 27B.
        const int32_t d = c.n_layers == 62 ? c.dim / c.n_heads : c.head_dim;
        if (std::abs(c.attention_scores_scale() * std::sqrt(static_cast<float>(d)) - 1.0f) > 1e-6f)
            fail(LLM_ERR_UNSUPPORTED,
                 "GGUF (llama.cpp's gemma3) holds no query_pre_attn_scalar: "
                 "it must be ",
                 d, " here");
    }
    if (!options.llama2c_tokenizer.empty())
        llama2c_tokenizer_kv(kv, options.llama2c_tokenizer, c.vocab_size);
    else if (!options.hf_tokenizer_dir.empty())
        hf_tokenizer_kv(kv, options.hf_tokenizer_dir, spec);

    std::string head;
    auto put = [&](const void *p, size_t n) { head.append(static_cast<const char *>(p), n); };
    auto put_u32 = [&](uint32_t v) { put(&v, 4); };
    auto put_u64 = [&](uint64_t v) { put(&v, 8); };
    put("GGUF", 4);
    put_u32(3);
    put_u64(plan.size());
    put_u64(kv.count);
    head += kv.bytes;
    for (const Planned &p : plan) {
        put_u64(p.name.size());
        put(p.name.data(), p.name.size());
        const TensorSource &t = *p.source;
        put_u32(static_cast<uint32_t>(t.shape.size()));
        for (size_t i = t.shape.size(); i-- > 0;) // ne[0] is the row length
            put_u64(static_cast<uint64_t>(t.shape[i]));
        put_u32(ggml_type_id(p.type));
        put_u64(p.offset);
    }
    head.append(padded(head.size()) - head.size(), '\0');

    std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "wb"));
    if (!f) fail(LLM_ERR_IO, path, ": cannot create");
    auto write = [&](const void *p, size_t n) {
        if (n && std::fwrite(p, 1, n, f.get()) != n) fail(LLM_ERR_IO, path, ": write failed");
    };
    write(head.data(), head.size());
    std::vector<float> row;
    std::vector<uint8_t> out, tmp;
    uint64_t written = 0;
    for (const Planned &p : plan) {
        const TensorSource &t = *p.source;
        const int64_t cols = t.cols();
        row.resize(static_cast<size_t>(cols));
        out.resize(static_cast<size_t>(row_bytes(p.type, cols)));
        for (int64_t r = 0; r < t.rows(); ++r) {
            t.row(p.rope_rows ? half_split_row_of_interleaved(r, c.head_dim) : r, row.data());
            if (p.add != 0)
                for (float &x : row)
                    x += p.add;
            switch (p.type) {
            case DType::F32: std::memcpy(out.data(), row.data(), out.size()); break;
            case DType::F16:
            case DType::BF16:
                for (int64_t i = 0; i < cols; ++i) {
                    const uint16_t h = p.type == DType::F16
                                           ? f32_to_f16(row[static_cast<size_t>(i)])
                                           : f32_to_bf16(row[static_cast<size_t>(i)]);
                    std::memcpy(out.data() + 2 * i, &h, 2);
                }
                break;
            case DType::Q8_0:
                tmp.resize(static_cast<size_t>(q8_0_row_bytes(cols)));
                quantize_row_q8_0(row.data(), tmp.data(), cols);
                repack_q8_0_to_gguf(tmp.data(), out.data(), cols);
                break;
            default: quantize_row_blocks(p.type, row.data(), out.data(), cols); break;
            }
            write(out.data(), out.size());
        }
        const uint64_t end = p.offset + p.bytes;
        const std::string pad(static_cast<size_t>(padded(end) - end), '\0');
        write(pad.data(), pad.size());
        written = padded(end);
    }
    (void)written;
    if (std::fclose(f.release()) != 0) fail(LLM_ERR_IO, path, ": write failed");
}

} // namespace llm::gen
