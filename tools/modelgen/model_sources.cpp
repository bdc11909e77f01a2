#include "model_sources.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "common/error.h"
#include "kernels/kernels.h"
#include "loaders/hf_config.h"
#include "model/synthetic_model.h"
#include "tokenizer/tokenizer.h"

namespace llm::gen {

namespace {

// A shape as config.json describes it, with the family's BOS/EOS ids
// (Qwen2.5's, Llama 3's, Gemma 3's; llama2.c's tok512 and Llama-2
// vocabularies for the small ones).
ModelSpec spec_for(ModelConfig c) {
    ModelSpec s;
    c.rope_style = RopeStyle::HalfSplit; // sources are in HF layout
    s.config = c;
    s.tied = true;
    const bool qwen = c.arch == "qwen2" || c.arch == "qwen3";
    s.bos = qwen ? 151643 : 1;
    s.eos = qwen ? std::vector<int32_t>{151645, 151643} : std::vector<int32_t>{2};
    if (c.vocab_size == 128256) { // Llama 3
        s.bos = 128000;
        s.eos = {128001, 128008, 128009};
    } else if (c.vocab_size == 262144) { // Gemma 3
        s.bos = 2;
        s.eos = {1, 106};
    }
    return s;
}

// Test-sized shapes: those of shared/models/qwen2-tiny and stories260K.
ModelConfig small_config(const char *arch, int32_t dim, int32_t hidden, int32_t layers,
                         int32_t heads, int32_t kv_heads, int32_t vocab, float theta, float eps) {
    ModelConfig c;
    c.arch = arch;
    c.dim = dim;
    c.hidden_dim = hidden;
    c.n_layers = layers;
    c.n_heads = heads;
    c.n_kv_heads = kv_heads;
    c.head_dim = dim / heads;
    c.vocab_size = vocab;
    c.max_seq_len = 512;
    c.rope_theta = theta;
    c.norm_eps = eps;
    c.qkv_bias = c.arch == "qwen2";
    c.qk_norm = c.arch == "qwen3";
    return c;
}

// Tiny Qwen3, Llama 3 and Gemma 3 for the GGUF tests (tok512's vocabulary,
// every width a multiple of 256 for the K types), each with what sets its
// architecture apart made to matter within a few hundred tokens.
ModelSpec tiny_qwen3() {
    ModelConfig c = small_config("qwen3", 256, 512, 2, 4, 2, 512, 1e6f, 1e-6f);
    c.head_dim = 128; // explicit, n_heads * head_dim != dim
    ModelSpec s = spec_for(c);
    s.bos = 1;
    s.eos = {2};
    return s;
}

ModelSpec tiny_llama3() {
    ModelConfig c = small_config("llama", 256, 512, 2, 4, 2, 512, 500000.0f, 1e-5f);
    ModelSpec s = spec_for(c);
    // Llama 3's scaling with a short original context, so that the scaled
    // and the smoothed bands hold several of the 32 frequencies.
    s.llama3_rope = {8.0, 1.0, 4.0, 256.0};
    s.config.rope_freq_divisors =
        llama3_rope_divisors(c.head_dim, c.rope_theta, 8.0, 1.0, 4.0, 256.0);
    return s;
}

ModelConfig gemma3_config(ModelConfig c, int32_t window) {
    c.arch = "gemma3";
    c.qk_norm = true;
    c.post_norms = true;
    c.ffn_activation = Activation::GeluTanh;
    c.embedding_scale = std::sqrt(static_cast<float>(c.dim));
    // query_pre_attn_scalar = head_dim, as in Gemma 3 1B/4B/12B (llama.cpp
    // uses 1/sqrt(head_dim) there and ignores the field).
    c.attention_scale = 1.0f / std::sqrt(static_cast<float>(c.head_dim));
    c.layer_attention.clear();
    for (int32_t l = 0; l < c.n_layers; ++l)
        c.layer_attention.push_back((l + 1) % 6 == 0 ? LayerAttention{0, c.rope_theta}
                                                     : LayerAttention{window, 10000.0f});
    return c;
}

ModelSpec tiny_gemma3() {
    // Six layers: five sliding (a 32-token window) and one global.
    ModelConfig c = small_config("gemma3", 256, 512, 6, 4, 1, 512, 1e6f, 1e-6f);
    c.head_dim = 64;
    ModelSpec s = spec_for(gemma3_config(c, 32));
    s.bos = 1;
    s.eos = {2};
    return s;
}

const std::map<std::string, ModelSpec> &shapes() {
    static const std::map<std::string, ModelSpec> table = [] {
        std::map<std::string, ModelSpec> t;
        // The benchmark shapes are llm-bench's (one list for both tools).
        for (const char *name : {"qwen2.5-0.5b", "qwen3-0.6b", "llama3.2-1b", "gemma3-1b",
                                 "stories15M", "stories42M", "stories110M"}) {
            ModelConfig c;
            if (!synthetic_config(name, c)) fail(LLM_ERR_INTERNAL, "no synthetic shape ", name);
            t[name] = spec_for(c);
        }
        t["llama3.2-1b"].llama3_rope = {32.0, 1.0, 4.0, 8192.0};
        t["qwen2-tiny"] = spec_for(small_config("qwen2", 64, 176, 2, 4, 2, 151936, 1e6f, 1e-6f));
        t["stories260K"] = spec_for(small_config("llama", 64, 172, 5, 8, 4, 512, 1e4f, 1e-5f));
        // Every width a multiple of 256, for GGUF's K types: Qwen2's vocab
        // (qwen2-tiny's tokenizer) and llama2.c's tok512 one.
        t["tiny256"] = spec_for(small_config("qwen2", 256, 512, 2, 4, 2, 151936, 1e6f, 1e-6f));
        t["tiny256-llama"] = spec_for(small_config("llama", 256, 512, 2, 4, 2, 512, 1e4f, 1e-5f));
        t["qwen3-tiny"] = tiny_qwen3();
        t["llama3-tiny"] = tiny_llama3();
        t["gemma3-tiny"] = tiny_gemma3();
        return t;
    }();
    return table;
}

uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// splitmix64: tiny, fast, and identical everywhere (unlike <random>'s
// distributions).
struct Rng {
    uint64_t state;
    float uniform() { // [-1, 1)
        state += 0x9e3779b97f4a7c15ull;
        return static_cast<float>(mix64(state) >> 40) * (2.0f / 16777216.0f) - 1.0f;
    }
};

bool ends_with(const std::string &s, const char *suffix) {
    const size_t n = std::char_traits<char>::length(suffix);
    return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

} // namespace

const ModelSpec *find_shape(const std::string &name) {
    auto it = shapes().find(name);
    return it == shapes().end() ? nullptr : &it->second;
}

std::vector<std::string> shape_names() {
    std::vector<std::string> names;
    for (const auto &kv : shapes())
        names.push_back(kv.first);
    return names;
}

std::vector<TensorSource> random_tensors(const ModelSpec &spec, uint64_t seed) {
    std::vector<TensorSource> tensors = hf_tensor_layout(spec);
    for (size_t i = 0; i < tensors.size(); ++i) {
        const std::string &name = tensors[i].name;
        const int64_t cols = tensors[i].cols();
        float offset = 0.0f, scale;
        if (ends_with(name, "norm.weight")) {
            offset = 1.0f - hf_norm_shift(spec.config);
            scale = 0.1f;
        } else if (ends_with(name, ".bias")) {
            scale = 0.1f;
        } else {
            scale = std::sqrt(3.0f / static_cast<float>(cols)); // std 1/sqrt(cols)
        }
        const uint64_t tensor_seed = mix64(seed ^ mix64(i + 1));
        tensors[i].row = [=](int64_t r, float *out) {
            Rng rng{mix64(tensor_seed ^ mix64(static_cast<uint64_t>(r) + 0x51ed2701ull))};
            for (int64_t j = 0; j < cols; ++j)
                out[j] = offset + scale * rng.uniform();
        };
    }
    return tensors;
}

std::vector<TensorSource> peaked_tensors(const ModelSpec &spec, uint64_t seed) {
    std::vector<TensorSource> tensors = random_tensors(spec, seed);
    for (TensorSource &t : tensors) {
        const std::string &name = t.name;
        // (offset, standard deviation) of shared/models/qwen2-tiny's scales.
        float offset = 0.0f, sd = 0.0f;
        if (name == "model.norm.weight") {
            offset = 40.0f;
            sd = 8.0f;
        } else if (ends_with(name, "norm.weight")) {
            offset = 1.0f;
            sd = 0.2f;
        } else if (name == "model.embed_tokens.weight" || name == "lm_head.weight") {
            sd = 0.015f;
        } else if (ends_with(name, "q_proj.weight") || ends_with(name, "k_proj.weight") ||
                   ends_with(name, "gate_proj.weight") || ends_with(name, "up_proj.weight")) {
            sd = 0.25f;
        } else if (ends_with(name, "q_proj.bias") || ends_with(name, "k_proj.bias")) {
            sd = 0.3f;
        } else if (ends_with(name, "v_proj.weight") || ends_with(name, "v_proj.bias")) {
            sd = 0.1f;
        } else if (ends_with(name, "o_proj.weight")) {
            sd = 0.004f;
        } else if (ends_with(name, "down_proj.weight")) {
            sd = 0.003f;
        } else {
            fail(LLM_ERR_INTERNAL, "no peaked scale for ", name);
        }
        // qwen2-tiny's matrices take 64-wide inputs: wider ones scale by
        // 8 / sqrt(width) so that products keep their size (else attention
        // turns into a hard argmax that the least rounding flips).
        if (t.shape.size() == 2) sd *= 8.0f / std::sqrt(static_cast<float>(t.cols()));
        // random_tensors' values are uniform with a known spread: rescale.
        const bool gain = ends_with(name, "norm.weight");
        const float shift = gain ? hf_norm_shift(spec.config) : 0.0f;
        offset -= shift;
        const float base_offset = gain ? 1.0f - shift : 0.0f;
        const float base_sd = gain || ends_with(name, ".bias")
                                  ? 0.1f / std::sqrt(3.0f)
                                  : 1.0f / std::sqrt(static_cast<float>(t.cols()));
        const float k = sd / base_sd;
        const int64_t cols = t.cols();
        auto base = t.row;
        t.row = [=](int64_t r, float *out) {
            base(r, out);
            for (int64_t j = 0; j < cols; ++j)
                out[j] = offset + k * (out[j] - base_offset);
        };
    }
    return tensors;
}

ModelSpec spec_of(const Model &model, bool untie) {
    ModelSpec s;
    s.config = model.config;
    s.config.rope_style = RopeStyle::HalfSplit;
    const ModelWeights &w = model.weights;
    s.tied = !untie && w.classifier.data == w.token_embedding.data;
    s.bos = model.tokenizer ? model.tokenizer->bos() : -1;
    s.eos = model.eog_tokens;
    return s;
}

int64_t interleaved_row_of_half_split(int64_t r, int64_t head_dim) {
    const int64_t head = r / head_dim, j = r % head_dim, half = head_dim / 2;
    return head * head_dim + 2 * (j % half) + j / half;
}

int64_t half_split_row_of_interleaved(int64_t r, int64_t head_dim) {
    const int64_t head = r / head_dim, j = r % head_dim, half = head_dim / 2;
    return head * head_dim + (j % 2) * half + j / 2;
}

std::vector<TensorSource> model_tensors(const Model &model, const ModelSpec &spec) {
    using RowFn = std::function<void(int64_t, float *)>;
    const ModelConfig &c = model.config;
    const ModelWeights &w = model.weights;
    const bool permute = c.rope_style == RopeStyle::Interleaved;
    auto matrix = [](const Matrix *m) -> RowFn {
        return [m](int64_t r, float *out) { matrix_row_f32(*m, r, out); };
    };
    auto rope_matrix = [&](const Matrix *m) -> RowFn {
        if (!permute) return matrix(m);
        const int64_t hd = c.head_dim;
        return [m, hd](int64_t r, float *out) {
            matrix_row_f32(*m, interleaved_row_of_half_split(r, hd), out);
        };
    };
    auto vector = [](const Vector *v) -> RowFn {
        return [v](int64_t, float *out) { std::copy_n(v->data, v->n, out); };
    };
    // A loaded norm holds the gain; HF layout holds it minus the shift.
    const float shift = hf_norm_shift(c);
    auto norm = [shift](const Vector *v) -> RowFn {
        return [v, shift](int64_t, float *out) {
            for (int64_t i = 0; i < v->n; ++i)
                out[i] = v->data[i] - shift;
        };
    };
    std::map<std::string, RowFn> rows;
    rows["model.embed_tokens.weight"] = matrix(&w.token_embedding);
    for (int32_t i = 0; i < c.n_layers; ++i) {
        const LayerWeights &l = w.layers[static_cast<size_t>(i)];
        const std::string p = "model.layers." + std::to_string(i) + ".";
        rows[p + "input_layernorm.weight"] = norm(&l.attn_norm);
        if (c.qk_norm) {
            rows[p + "self_attn.q_norm.weight"] = norm(&l.q_norm);
            rows[p + "self_attn.k_norm.weight"] = norm(&l.k_norm);
        }
        rows[p + "self_attn.q_proj.weight"] = rope_matrix(&l.wq);
        rows[p + "self_attn.k_proj.weight"] = rope_matrix(&l.wk);
        rows[p + "self_attn.v_proj.weight"] = matrix(&l.wv);
        if (c.qkv_bias) {
            // Biases live in the same rows as q/k: permuted alike.
            const int64_t hd = c.head_dim;
            auto bias = [permute, hd](const Vector *v) -> RowFn {
                return [v, permute, hd](int64_t, float *out) {
                    for (int64_t r = 0; r < v->n; ++r)
                        out[r] = v->data[permute ? interleaved_row_of_half_split(r, hd) : r];
                };
            };
            rows[p + "self_attn.q_proj.bias"] = bias(&l.bq);
            rows[p + "self_attn.k_proj.bias"] = bias(&l.bk);
            rows[p + "self_attn.v_proj.bias"] = vector(&l.bv);
        }
        rows[p + "self_attn.o_proj.weight"] = matrix(&l.wo);
        if (c.post_norms) {
            rows[p + "post_attention_layernorm.weight"] = norm(&l.post_attn_norm);
            rows[p + "pre_feedforward_layernorm.weight"] = norm(&l.ffn_norm);
            rows[p + "post_feedforward_layernorm.weight"] = norm(&l.post_ffn_norm);
        } else {
            rows[p + "post_attention_layernorm.weight"] = norm(&l.ffn_norm);
        }
        rows[p + "mlp.gate_proj.weight"] = matrix(&l.w_gate);
        rows[p + "mlp.up_proj.weight"] = matrix(&l.w_up);
        rows[p + "mlp.down_proj.weight"] = matrix(&l.w_down);
    }
    rows["model.norm.weight"] = norm(&w.final_norm);
    rows["lm_head.weight"] = matrix(&w.classifier);
    std::vector<TensorSource> tensors = hf_tensor_layout(spec);
    for (TensorSource &t : tensors) {
        auto it = rows.find(t.name);
        if (it == rows.end()) fail(LLM_ERR_INTERNAL, "no source for tensor ", t.name);
        t.row = it->second;
    }
    return tensors;
}

} // namespace llm::gen
