#include "loaders/gguf_loader.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "chat/chat_template.h"
#include "common/error.h"
#include "kernels/float_convert.h"
#include "kernels/quant_blocks.h"
#include "kernels/thread_pool.h"
#include "loaders/gguf_file.h"
#include "loaders/loader.h"
#include "tokenizer/tokenizer.h"

namespace llm {

namespace {

// What differs between the architectures: data.
struct GgufArch {
    const char *name;
    // llama.cpp's converter permutes the Q/K rows of `llama` models back to
    // Meta's adjacent pairs; qwen2, qwen3 and gemma3 keep Hugging Face's
    // rotate-half layout.
    RopeStyle rope_style;
    bool qkv_bias; // blk.N.attn_{q,k,v}.bias are required
    bool qk_norm;  // blk.N.attn_{q,k}_norm.weight, per head (Qwen3, Gemma 3)
    // Gemma 3 as llama.cpp runs it: embeddings times sqrt(dim), GELU-tanh
    // FFN, blk.N.post_attention_norm / post_ffw_norm on the attention and
    // FFN outputs, and every 6th layer global, the others within
    // {arch}.attention.sliding_window at RoPE theta 10000. Norm weights are
    // stored as gains (the converter wrote Gemma's w as 1 + w).
    bool gemma3;
};

constexpr GgufArch kArchs[] = {
    {"llama", RopeStyle::Interleaved, false, false, false},
    {"qwen2", RopeStyle::HalfSplit, true, false, false},
    {"qwen3", RopeStyle::HalfSplit, false, true, false},
    {"gemma3", RopeStyle::HalfSplit, false, true, true},
};

const GgufArch &find_arch(const GgufFile &f) {
    const std::string arch = f.get_string("general.architecture");
    for (const GgufArch &a : kArchs)
        if (arch == a.name) return a;
    std::string known;
    for (const GgufArch &a : kArchs)
        known += std::string(known.empty() ? "" : ", ") + a.name;
    fail(LLM_ERR_UNSUPPORTED, f.name, ": general.architecture \"", arch,
         "\" is not supported (libllm reads ", known, ")");
}

// The architecture's hyper-parameter keys ("{arch}.embedding_length", ...).
class ArchKeys {
  public:
    ArchKeys(const GgufFile &f, const GgufArch &arch) : f_(f), prefix_(std::string(arch.name)) {}

    std::string key(const char *suffix) const { return prefix_ + "." + suffix; }
    bool has(const char *suffix) const { return f_.find(key(suffix)) != nullptr; }

    // A dimension: required unless a default is given, within 1..max.
    int32_t dim(const char *suffix, int64_t max, int64_t fallback = -1) const {
        const std::string k = key(suffix);
        const GgufValue *v = f_.find(k);
        if (!v && fallback < 0) fail(LLM_ERR_FORMAT, f_.name, ": no key \"", k, "\"");
        if (v && v->type == GgufType::ARRAY)
            fail(LLM_ERR_UNSUPPORTED, f_.name, ": key \"", k,
                 "\" holds per-layer values, which libllm does not support");
        const int64_t n = v ? f_.get_int(k) : fallback;
        check_dimension(f_.name, k.c_str(), n, max);
        return static_cast<int32_t>(n);
    }

    // A positive finite number: required unless a default is given.
    float positive(const char *suffix, double fallback = -1) const {
        const std::string k = key(suffix);
        if (!f_.find(k) && fallback < 0) fail(LLM_ERR_FORMAT, f_.name, ": no key \"", k, "\"");
        const double x = f_.find(k) ? f_.get_float(k) : fallback;
        // (checked as a double: a cast of one beyond float's range is undefined)
        if (!(x > 0.0) || !(x <= static_cast<double>(FLT_MAX)) || !(static_cast<float>(x) > 0.0f))
            fail(LLM_ERR_BAD_DIMENSIONS, f_.name, ": key \"", k, "\" = ", x,
                 " is not a positive number");
        return static_cast<float>(x);
    }

  private:
    const GgufFile &f_;
    std::string prefix_;
};

// Gemma 3's hyper-parameters, as llama.cpp's gemma3 reads them: the window
// (absent or 0: every layer global), the local theta (llama.cpp's fixed
// 10000, or {arch}.rope.freq_base_swa), and the attention scale, which no
// key holds: 1/sqrt(head_dim), 1/sqrt(dim / n_heads) for the 62-layer 27B
// (gemma_pytorch's rule; both equal query_pre_attn_scalar^-1/2 in every
// released Gemma 3). Logit softcapping (Gemma 2's) is refused.
void read_gemma3(const GgufFile &f, const ArchKeys &k, ModelConfig &c) {
    for (const char *cap : {"final_logit_softcapping", "attn_logit_softcapping"})
        if (k.has(cap) && f.get_float(k.key(cap)) != 0.0)
            fail(LLM_ERR_UNSUPPORTED, f.name, ": ", k.key(cap),
                 " (logit softcapping) is not "
                 "supported");
    c.ffn_activation = Activation::GeluTanh;
    c.post_norms = true;
    c.embedding_scale = std::sqrt(static_cast<float>(c.dim));
    const int32_t scale_dim = c.n_layers == 62 ? c.dim / c.n_heads : c.head_dim;
    c.attention_scale = 1.0f / std::sqrt(static_cast<float>(scale_dim));
    const int32_t window =
        k.has("attention.sliding_window") && f.get_int(k.key("attention.sliding_window")) != 0
            ? k.dim("attention.sliding_window", ModelLimits::seq_len)
            : 0;
    const float local_theta = k.positive("rope.freq_base_swa", 10000.0);
    c.layer_attention.assign(static_cast<size_t>(c.n_layers), LayerAttention{});
    for (int32_t i = 0; i < c.n_layers; ++i)
        if (window > 0 && i % 6 != 5)
            c.layer_attention[static_cast<size_t>(i)] = {window, local_theta};
}

ModelConfig read_config(const GgufFile &f, const GgufArch &arch) {
    using Lim = ModelLimits;
    const ArchKeys k(f, arch);
    ModelConfig c;
    c.arch = arch.name;
    c.rope_style = arch.rope_style;
    c.qkv_bias = arch.qkv_bias;
    c.qk_norm = arch.qk_norm;
    c.max_seq_len = k.dim("context_length", Lim::seq_len);
    c.dim = k.dim("embedding_length", Lim::dim);
    c.n_layers = k.dim("block_count", Lim::layers);
    c.hidden_dim = k.dim("feed_forward_length", Lim::hidden_dim);
    c.n_heads = k.dim("attention.head_count", Lim::heads);
    c.n_kv_heads = k.dim("attention.head_count_kv", Lim::heads, c.n_heads);
    if (!k.has("attention.key_length") && c.dim % c.n_heads != 0)
        fail(LLM_ERR_BAD_DIMENSIONS, f.name, ": ", k.key("embedding_length"), " ", c.dim,
             " is not a multiple of ", k.key("attention.head_count"), " ", c.n_heads, " (and no ",
             k.key("attention.key_length"), " says the head size)");
    c.head_dim = k.dim("attention.key_length", Lim::head_dim, c.dim / c.n_heads);
    if (k.has("attention.value_length") &&
        k.dim("attention.value_length", Lim::head_dim) != c.head_dim)
        fail(LLM_ERR_UNSUPPORTED, f.name, ": ", k.key("attention.value_length"),
             " differs from the key length ", c.head_dim, "; libllm needs them equal");
    if (c.n_heads % c.n_kv_heads != 0)
        fail(LLM_ERR_BAD_DIMENSIONS, f.name, ": ", k.key("attention.head_count"), " ", c.n_heads,
             " is not a multiple of ", k.key("attention.head_count_kv"), " ", c.n_kv_heads);
    if (c.head_dim % 2 != 0)
        fail(LLM_ERR_BAD_DIMENSIONS, f.name, ": head size ", c.head_dim,
             " is odd (RoPE needs pairs)");
    c.norm_eps = k.positive("attention.layer_norm_rms_epsilon");
    c.rope_theta = k.positive("rope.freq_base", 10000.0);
    if (k.has("rope.dimension_count") && k.dim("rope.dimension_count", Lim::head_dim) != c.head_dim)
        fail(LLM_ERR_UNSUPPORTED, f.name, ": ", k.key("rope.dimension_count"), " ",
             f.get_int(k.key("rope.dimension_count")), " differs from the head size ", c.head_dim,
             " (partial RoPE is not supported)");
    if (k.has("rope.scaling.type")) {
        const std::string type = f.get_string(k.key("rope.scaling.type"));
        if (type != "none")
            fail(LLM_ERR_UNSUPPORTED, f.name, ": ", k.key("rope.scaling.type"), " \"", type,
                 "\" is not supported");
    }
    if (arch.gemma3) read_gemma3(f, k, c);
    return c;
}

std::string shape_str(const std::vector<uint64_t> &ne) {
    std::string s = "[";
    for (size_t i = 0; i < ne.size(); ++i)
        s += (i ? ", " : "") + std::to_string(ne[i]);
    return s + "]";
}

// Hands out the file's tensors as the engine's views, checking each against
// the shape the config implies.
class TensorBinder {
  public:
    TensorBinder(const GgufFile &f, const MappedFile &file, Model &model)
        : f_(f), file_(file), model_(model) {}

    bool has(const std::string &name) const { return f_.find_tensor(name) != nullptr; }

    const GgufTensorInfo &require(const std::string &name) const {
        const GgufTensorInfo *t = f_.find_tensor(name);
        if (!t) fail(LLM_ERR_FORMAT, f_.name, ": missing tensor \"", name, "\"");
        return *t;
    }

    Matrix matrix(const std::string &name, int64_t rows, int64_t cols) {
        const GgufTensorInfo &t = require(name);
        const uint64_t t_rows = t.ne.size() > 1 ? t.ne[1] : 1;
        if (t.rank() > 2 || t.ne[0] != static_cast<uint64_t>(cols) ||
            t_rows != static_cast<uint64_t>(rows))
            fail(LLM_ERR_BAD_DIMENSIONS, f_.name, ": tensor \"", name, "\" has shape ",
                 shape_str(t.ne), " but the model's keys imply [", cols, ", ", rows,
                 "] (columns, rows)");
        const DType type = dtype_of(t);
        if (type == DType::Q8_0) return repack_q8_0(t, rows, cols);
        return Matrix{aligned_data(t, type), type, rows, cols};
    }

    // Norm gains and biases: widened to fp32 in storage the model owns.
    Vector vector(const std::string &name, int64_t n) {
        const GgufTensorInfo &t = require(name);
        if (t.rank() != 1 || t.ne[0] != static_cast<uint64_t>(n))
            fail(LLM_ERR_BAD_DIMENSIONS, f_.name, ": tensor \"", name, "\" has shape ",
                 shape_str(t.ne), " but the model's keys imply [", n, "]");
        const DType type = dtype_of(t);
        float *out = reinterpret_cast<float *>(model_.allocate(static_cast<size_t>(n) * 4));
        for (int64_t i = 0; i < n; ++i) {
            if (type == DType::F32) {
                std::memcpy(out + i, t.data + 4 * i, 4);
            } else if (type == DType::F16 || type == DType::BF16) {
                uint16_t h;
                std::memcpy(&h, t.data + 2 * i, 2);
                out[i] = type == DType::F16 ? f16_to_f32(h) : bf16_to_f32(h);
            } else {
                fail(LLM_ERR_UNSUPPORTED, f_.name, ": tensor \"", name, "\" has type ",
                     ggml_type_name(t.type), "; vectors must be f32, f16 or bf16");
            }
        }
        return Vector{out, n};
    }

  private:
    DType dtype_of(const GgufTensorInfo &t) const {
        DType d;
        if (!ggml_type_dtype(t.type, d) || t.data == nullptr)
            fail(LLM_ERR_UNSUPPORTED, f_.name, ": tensor \"", t.name, "\" has type ",
                 ggml_type_name(t.type),
                 "; libllm reads f32, f16, bf16, q4_0, q4_1, q5_0, q5_1, q8_0, q4_K, q5_K "
                 "and q6_K");
        return d;
    }

    // The kernels read values in place: fp32 must be 4-byte aligned, the
    // 16-bit types and blocks (fp16 scales) 2-byte. A file with a smaller
    // alignment than its types need gets an aligned copy.
    const void *aligned_data(const GgufTensorInfo &t, DType type) {
        const uintptr_t align = type == DType::F32 ? 4 : 2;
        if (reinterpret_cast<uintptr_t>(t.data) % align == 0) return t.data;
        uint8_t *copy = model_.allocate(static_cast<size_t>(t.bytes));
        std::memcpy(copy, t.data, static_cast<size_t>(t.bytes));
        return copy;
    }

    // GGUF's Q8_0 (blocks of fp16 scale + 32 quants) into libllm's row
    // layout (the row's scales, then its quants); the source pages are not
    // read again.
    Matrix repack_q8_0(const GgufTensorInfo &t, int64_t rows, int64_t cols) {
        Matrix m{nullptr, DType::Q8_0, rows, cols};
        uint8_t *dst = model_.allocate(m.bytes());
        const size_t src_row = static_cast<size_t>(cols / 32) * kQ8_0FileBytes;
        if (!pool_) pool_ = std::make_unique<ThreadPool>(ThreadPool::physical_cores());
        pool_->parallel_for(rows, 64, [&](int64_t begin, int64_t end, int) {
            for (int64_t i = begin; i < end; ++i)
                repack_q8_0_from_gguf(t.data + static_cast<size_t>(i) * src_row,
                                      dst + static_cast<size_t>(i) * m.row_bytes(), cols);
        });
        file_.drop_pages(t.data, static_cast<size_t>(t.bytes));
        m.data = dst;
        return m;
    }

    const GgufFile &f_;
    const MappedFile &file_;
    Model &model_;
    std::unique_ptr<ThreadPool> pool_; // made for the first Q8_0 matrix
};

void bind_weights(const GgufFile &f, const MappedFile &file, Model &model) {
    ModelConfig &c = model.config;
    ModelWeights &w = model.weights;
    TensorBinder b(f, file, model);
    // llama.cpp stores Llama 3's rope scaling as the divisor of each
    // frequency (its converter's rope_freqs; ggml's rope divides theta by it).
    if (b.has("rope_freqs.weight")) {
        const Vector divisors = b.vector("rope_freqs.weight", c.head_dim / 2);
        c.rope_freq_divisors.assign(divisors.data, divisors.data + divisors.n);
    }
    const GgufTensorInfo &embd = b.require("token_embd.weight");
    if (embd.ne.size() < 2 || embd.rank() > 2)
        fail(LLM_ERR_BAD_DIMENSIONS, f.name, ": tensor \"token_embd.weight\" has shape ",
             shape_str(embd.ne), ", not [embedding_length, vocabulary]");
    check_dimension(f.name, "token_embd.weight rows (the vocabulary)",
                    static_cast<int64_t>(std::min<uint64_t>(embd.ne[1], INT64_MAX)),
                    ModelLimits::vocab);
    c.vocab_size = static_cast<int32_t>(embd.ne[1]);
    // Biases: required by the architecture, or used when a llama file has them.
    c.qkv_bias = c.qkv_bias || b.has("blk.0.attn_q.bias");

    const int64_t dim = c.dim, hidden = c.hidden_dim, q_dim = c.q_dim(), kv_dim = c.kv_dim();
    w.token_embedding = b.matrix("token_embd.weight", c.vocab_size, dim);
    w.layers.resize(static_cast<size_t>(c.n_layers));
    for (int32_t i = 0; i < c.n_layers; ++i) {
        LayerWeights &l = w.layers[static_cast<size_t>(i)];
        const std::string p = "blk." + std::to_string(i) + ".";
        l.attn_norm = b.vector(p + "attn_norm.weight", dim);
        l.wq = b.matrix(p + "attn_q.weight", q_dim, dim);
        l.wk = b.matrix(p + "attn_k.weight", kv_dim, dim);
        l.wv = b.matrix(p + "attn_v.weight", kv_dim, dim);
        if (c.qk_norm) {
            l.q_norm = b.vector(p + "attn_q_norm.weight", c.head_dim);
            l.k_norm = b.vector(p + "attn_k_norm.weight", c.head_dim);
        }
        if (c.qkv_bias) {
            l.bq = b.vector(p + "attn_q.bias", q_dim);
            l.bk = b.vector(p + "attn_k.bias", kv_dim);
            l.bv = b.vector(p + "attn_v.bias", kv_dim);
        }
        l.wo = b.matrix(p + "attn_output.weight", dim, q_dim);
        if (c.post_norms) {
            l.post_attn_norm = b.vector(p + "post_attention_norm.weight", dim);
            l.post_ffn_norm = b.vector(p + "post_ffw_norm.weight", dim);
        }
        l.ffn_norm = b.vector(p + "ffn_norm.weight", dim);
        l.w_gate = b.matrix(p + "ffn_gate.weight", hidden, dim);
        l.w_up = b.matrix(p + "ffn_up.weight", hidden, dim);
        l.w_down = b.matrix(p + "ffn_down.weight", dim, hidden);
    }
    w.final_norm = b.vector("output_norm.weight", dim);
    // No output.weight: the classifier is tied to the embedding.
    w.classifier =
        b.has("output.weight") ? b.matrix("output.weight", c.vocab_size, dim) : w.token_embedding;
}

// A token id key: absent is -1; present must be a non-negative int32.
int32_t token_id(const GgufFile &f, const std::string &key) {
    if (!f.find(key)) return -1;
    const int64_t id = f.get_int(key);
    if (id < 0 || id > INT32_MAX)
        fail(LLM_ERR_FORMAT, f.name, ": key \"", key, "\" = ", id, " is not a token id");
    return static_cast<int32_t>(id);
}

int optional_bool(const GgufFile &f, const std::string &key) {
    return f.find(key) ? (f.get_bool(key) ? 1 : 0) : -1;
}

GgufVocab read_vocab(const GgufFile &f) {
    GgufVocab v;
    const std::string p = "tokenizer.ggml.";
    // Bounded before they are decoded (a string costs more in memory than
    // its 8 bytes in the file).
    for (const char *name : {"tokens", "scores", "token_type", "merges"})
        if (const GgufValue *a = f.find(p + name))
            if (a->type == GgufType::ARRAY && a->array_count > ModelLimits::vocab)
                fail(LLM_ERR_BAD_DIMENSIONS, f.name, ": key \"", p, name, "\" has ", a->array_count,
                     " entries (at most ", ModelLimits::vocab, ")");
    // Absent keys leave the vocabulary empty: load_gguf refuses it, the
    // weights alone can still be loaded.
    if (f.find(p + "model")) v.model = f.get_string(p + "model");
    if (f.find(p + "pre")) v.pre = f.get_string(p + "pre");
    if (f.find(p + "tokens")) v.tokens = f.get_string_array(p + "tokens");
    if (f.find(p + "scores")) v.scores = f.get_float_array(p + "scores");
    if (f.find(p + "token_type")) v.token_types = f.get_int32_array(p + "token_type");
    if (f.find(p + "merges")) v.merges = f.get_string_array(p + "merges");
    v.bos = token_id(f, p + "bos_token_id");
    v.eos = token_id(f, p + "eos_token_id");
    v.unk = token_id(f, p + "unknown_token_id");
    v.pad = token_id(f, p + "padding_token_id");
    v.eot = token_id(f, p + "eot_token_id");
    v.eom = token_id(f, p + "eom_token_id");
    v.add_bos = optional_bool(f, p + "add_bos_token");
    v.add_eos = optional_bool(f, p + "add_eos_token");
    v.add_space_prefix = optional_bool(f, p + "add_space_prefix");
    return v;
}

// The shortest %g form that reads back to the same value ("1e-06", not
// "9.99999997e-07").
std::string shortest_float(double x, bool single) {
    char buf[40];
    for (int digits = single ? 6 : 15; digits < (single ? 9 : 17); ++digits) {
        std::snprintf(buf, sizeof buf, "%.*g", digits, x);
        if (single ? std::strtof(buf, nullptr) == static_cast<float>(x)
                   : std::strtod(buf, nullptr) == x)
            return buf;
    }
    std::snprintf(buf, sizeof buf, "%.*g", single ? 9 : 17, x);
    return buf;
}

// Numbers in a form that reads back to the same value.
std::string value_string(const GgufValue &v) {
    switch (v.type) {
    case GgufType::U8:
    case GgufType::U16:
    case GgufType::U32:
    case GgufType::U64: return std::to_string(v.uint_value);
    case GgufType::I8:
    case GgufType::I16:
    case GgufType::I32:
    case GgufType::I64: return std::to_string(v.int_value);
    case GgufType::F32: return shortest_float(v.float_value, true);
    case GgufType::F64: return shortest_float(v.float_value, false);
    case GgufType::BOOL: return v.uint_value ? "true" : "false";
    case GgufType::STRING: return v.string_value;
    case GgufType::ARRAY: break;
    }
    return "";
}

} // namespace

std::unique_ptr<Model> load_gguf_weights(const std::string &path, const LoadOptions &options,
                                         GgufVocab &vocab) {
    auto file = MappedFile::open(path, options.use_mmap);
    const GgufFile f = parse_gguf(file->data(), file->size(), path);
    const GgufArch &arch = find_arch(f);

    auto model = std::make_unique<Model>();
    model->format = "gguf";
    model->config = read_config(f, arch);
    bind_weights(f, *file, *model);
    model->files.push_back(file);

    vocab = read_vocab(f);
    if (vocab.tokens.size() > static_cast<size_t>(model->config.vocab_size))
        fail(LLM_ERR_TOKENIZER_MISMATCH, path, ": tokenizer.ggml.tokens has ", vocab.tokens.size(),
             " tokens but token_embd.weight only ", model->config.vocab_size, " rows");
    for (int32_t id : {vocab.eos, vocab.eot, vocab.eom})
        if (id >= 0 && std::find(model->eog_tokens.begin(), model->eog_tokens.end(), id) ==
                           model->eog_tokens.end())
            model->eog_tokens.push_back(id);

    for (const auto &[key, value] : f.kvs)
        if (value.type != GgufType::ARRAY) model->metadata[key] = value_string(value);
    if (const GgufValue *t = f.find("tokenizer.chat_template"))
        if (t->type == GgufType::STRING) {
            model->chat_template = t->string_value;
            model->chat_default_system = chat_default_system(t->string_value);
        }
    validate_weights(*model);
    return model;
}

std::unique_ptr<Model> load_gguf(const std::string &path, const LoadOptions &options) {
    GgufVocab vocab;
    auto model = load_gguf_weights(path, options, vocab);
    if (vocab.model.empty() || vocab.tokens.empty())
        fail(LLM_ERR_FORMAT, path,
             ": no tokenizer (the keys tokenizer.ggml.model and tokenizer.ggml.tokens are "
             "required)");
    model->tokenizer = make_gguf_tokenizer(vocab);
    auto token_text = [&](int32_t id) {
        return id >= 0 && static_cast<size_t>(id) < vocab.tokens.size() ? vocab.tokens[id] : "";
    };
    set_model_chat_template(*model, std::move(model->chat_template), token_text(vocab.bos),
                            token_text(vocab.eos));
    validate_model(*model);
    return model;
}

} // namespace llm
