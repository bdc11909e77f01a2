// The one model description every loader produces and the engine consumes.
// Loaders (llama2.c .bin, Hugging Face safetensors folders, ...) only parse
// and validate; what differs between model families is data in ModelConfig
// (bias present, RoPE layout, theta, eps), never a second engine.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/mapped_file.h"
#include "model/tensor.h"

namespace llm {

class Tokenizer;

// How RoPE pairs up the dimensions of a head.
enum class RopeStyle {
    Interleaved, // llama2.c / Meta: rotate (2i, 2i+1)
    HalfSplit,   // Hugging Face rotate_half: rotate (i, i + head_dim/2)
};

// The FFN's gate: act(W_gate h) * (W_up h).
enum class Activation {
    SiLU,     // SwiGLU (Llama, Qwen)
    GeluTanh, // GELU, tanh approximation (Gemma's gelu_pytorch_tanh)
};

// How one layer attends: over which positions, and RoPE at which theta.
struct LayerAttention {
    // 0: every earlier position. Otherwise a token at position p sees the
    // last `window` positions, max(0, p - window + 1) .. p (sliding window).
    int32_t window = 0;
    // 0: ModelConfig::rope_theta; otherwise this layer's own.
    float rope_theta = 0.0f;
};

struct ModelConfig {
    std::string arch;       // "llama", "qwen2", "qwen3" or "gemma3"
    int32_t dim = 0;        // hidden size (residual stream width)
    int32_t hidden_dim = 0; // FFN inner width
    int32_t n_layers = 0;
    int32_t n_heads = 0;
    int32_t n_kv_heads = 0;
    int32_t head_dim = 0;
    int32_t vocab_size = 0;
    int32_t max_seq_len = 0;
    float rope_theta = 10000.0f;
    float norm_eps = 1e-5f;
    RopeStyle rope_style = RopeStyle::Interleaved;
    bool qkv_bias = false;
    // A per-head RMSNorm on q and on k after their projection and before
    // RoPE (Qwen3), with weights LayerWeights::q_norm, k_norm.
    bool qk_norm = false;
    // Empty, or head_dim / 2 divisors of RoPE's frequencies: pair i turns at
    // theta^(-2i/head_dim) / rope_freq_divisors[i] (Llama 3's rope scaling;
    // GGUF's rope_freqs.weight holds them as they are).
    std::vector<float> rope_freq_divisors;
    Activation ffn_activation = Activation::SiLU;
    // The token embedding is multiplied by this before the first layer
    // (Gemma: sqrt(dim)); 1 = as it is.
    float embedding_scale = 1.0f;
    // Attention scores are scale * q . k: 0 means 1/sqrt(head_dim) (Gemma 3:
    // 1/sqrt(query_pre_attn_scalar)).
    float attention_scale = 0.0f;
    // RMSNorms on the attention block's and the FFN's outputs, before each
    // is added to the residual stream (Gemma 2/3), with weights
    // LayerWeights::post_attn_norm, post_ffn_norm.
    bool post_norms = false;
    // Empty (every layer attends to all earlier positions, RoPE at
    // rope_theta) or one entry per layer. rope_freq_divisors, when present,
    // apply on every layer.
    std::vector<LayerAttention> layer_attention;

    int32_t q_dim() const { return n_heads * head_dim; }
    int32_t kv_dim() const { return n_kv_heads * head_dim; }
    // Layer `layer`'s attention window (0: full) and RoPE theta.
    int32_t window(int32_t layer) const { return attention_of(layer).window; }
    float layer_rope_theta(int32_t layer) const {
        const float t = attention_of(layer).rope_theta;
        return t > 0.0f ? t : rope_theta;
    }
    LayerAttention attention_of(int32_t layer) const {
        const size_t l = static_cast<size_t>(layer);
        return l < layer_attention.size() ? layer_attention[l] : LayerAttention{};
    }
    float attention_scores_scale() const;
};

struct LayerWeights {
    Vector attn_norm;      // [dim]
    Matrix wq, wk, wv;     // [q_dim x dim], [kv_dim x dim], [kv_dim x dim]
    Vector bq, bk, bv;     // biases, empty unless config.qkv_bias
    Vector q_norm, k_norm; // [head_dim], empty unless config.qk_norm
    Matrix wo;             // [dim x q_dim]
    Vector post_attn_norm; // [dim], empty unless config.post_norms
    Vector ffn_norm;       // [dim]
    Matrix w_gate, w_up;   // [hidden x dim] (llama2.c w1, w3)
    Matrix w_down;         // [dim x hidden] (llama2.c w2)
    Vector post_ffn_norm;  // [dim], empty unless config.post_norms
};

struct ModelWeights {
    Matrix token_embedding; // [vocab x dim]
    std::vector<LayerWeights> layers;
    Vector final_norm; // [dim]
    Matrix classifier; // [vocab x dim]; may alias token_embedding (tied)
};

// Everything a loaded model owns. Weights point into `files` (memory maps)
// or into `owned` (tensors converted at load time).
struct Model {
    ModelConfig config;
    ModelWeights weights;
    std::unique_ptr<Tokenizer> tokenizer;
    std::vector<int32_t> eog_tokens; // tokens that end a generation
    // The system prompt the model's chat template inserts when a chat has
    // none (Qwen2/2.5: "You are ... a helpful assistant."), or "".
    std::string chat_default_system;
    // The model's own Jinja chat template ("" if it has none) and the
    // bos_token / eos_token texts it is rendered with ("" = not defined).
    std::string chat_template;
    std::string chat_bos_token, chat_eos_token;
    std::string format; // "llama2c", "safetensors" or "gguf"
    // The file's metadata as strings, for llm_model_meta: GGUF's key-value
    // pairs (numbers and booleans written out, arrays left out), or "" keys
    // for other formats.
    std::map<std::string, std::string> metadata;
    std::vector<std::shared_ptr<MappedFile>> files;
    std::vector<std::unique_ptr<uint8_t[]>> owned;

    ~Model();

    // Allocates zeroed storage that lives as long as the model.
    uint8_t *allocate(size_t bytes);
    // Parameters and the bytes they occupy (tied tensors counted once).
    int64_t n_params() const;
    int64_t weight_bytes() const;
};

// Upper bounds far above any real model, so that a corrupt or hostile file
// is rejected before its sizes can ask for absurd allocations.
struct ModelLimits {
    static constexpr int64_t dim = 1 << 16;
    static constexpr int64_t hidden_dim = 1 << 18;
    static constexpr int64_t layers = 1 << 10;
    static constexpr int64_t heads = 1 << 10;
    static constexpr int64_t head_dim = 1 << 12;
    static constexpr int64_t vocab = 1 << 22;
    static constexpr int64_t seq_len = 1 << 22;
};

// BAD_DIMENSIONS "<where>: <name> = <value> is outside 1..<max>" unless
// 1 <= value <= max.
void check_dimension(const std::string &where, const char *name, int64_t value, int64_t max);

// Checks the config and the shapes of `weights` against it, and the
// end-of-generation ids (loaders call it once weights are bound).
void validate_weights(const Model &model);
// validate_weights plus the tokenizer's fit (every loader calls it last, so
// the engine can trust what it is handed).
void validate_model(const Model &model);

} // namespace llm
