#include "model/synthetic_model.h"

#include <cmath>
#include <vector>

#include "common/checked_math.h"
#include "kernels/thread_pool.h"
#include "loaders/hf_config.h"
#include "model/convert_weights.h"
#include "tokenizer/tokenizer.h"

namespace llm {

bool synthetic_config(const std::string &name, ModelConfig &c) {
    c = ModelConfig{};
    if (name == "qwen2.5-0.5b") {
        c.arch = "qwen2";
        c.dim = 896;
        c.hidden_dim = 4864;
        c.n_layers = 24;
        c.n_heads = 14;
        c.n_kv_heads = 2;
        c.head_dim = 64;
        c.vocab_size = 151936;
        c.max_seq_len = 32768;
        c.rope_theta = 1000000.0f;
        c.norm_eps = 1e-6f;
        c.rope_style = RopeStyle::HalfSplit;
        c.qkv_bias = true;
        return true;
    }
    if (name == "qwen3-0.6b") {
        c.arch = "qwen3";
        c.dim = 1024;
        c.hidden_dim = 3072;
        c.n_layers = 28;
        c.n_heads = 16;
        c.n_kv_heads = 8;
        c.head_dim = 128;
        c.vocab_size = 151936;
        c.max_seq_len = 40960;
        c.rope_theta = 1000000.0f;
        c.norm_eps = 1e-6f;
        c.rope_style = RopeStyle::HalfSplit;
        c.qk_norm = true;
        return true;
    }
    if (name == "llama3.2-1b") {
        c.arch = "llama";
        c.dim = 2048;
        c.hidden_dim = 8192;
        c.n_layers = 16;
        c.n_heads = 32;
        c.n_kv_heads = 8;
        c.head_dim = 64;
        c.vocab_size = 128256;
        c.max_seq_len = 131072;
        c.rope_theta = 500000.0f;
        c.norm_eps = 1e-5f;
        c.rope_style = RopeStyle::HalfSplit;
        c.rope_freq_divisors =
            llama3_rope_divisors(c.head_dim, c.rope_theta, 32.0, 1.0, 4.0, 8192.0);
        return true;
    }
    if (name == "gemma3-1b") {
        c.arch = "gemma3";
        c.dim = 1152;
        c.hidden_dim = 6912;
        c.n_layers = 26;
        c.n_heads = 4;
        c.n_kv_heads = 1;
        c.head_dim = 256;
        c.vocab_size = 262144;
        c.max_seq_len = 32768;
        c.rope_theta = 1000000.0f;
        c.norm_eps = 1e-6f;
        c.rope_style = RopeStyle::HalfSplit;
        c.qk_norm = true;
        c.post_norms = true;
        c.ffn_activation = Activation::GeluTanh;
        c.embedding_scale = std::sqrt(1152.0f);
        c.attention_scale = 1.0f / 16.0f; // query_pre_attn_scalar 256
        // Every 6th layer global (RoPE theta 1e6), the others a 512-token
        // window with theta 1e4.
        for (int32_t l = 0; l < c.n_layers; ++l)
            c.layer_attention.push_back((l + 1) % 6 == 0 ? LayerAttention{0, 1000000.0f}
                                                         : LayerAttention{512, 10000.0f});
        return true;
    }
    struct Llama2c {
        const char *name;
        int32_t dim, hidden, layers, heads, seq;
    };
    for (const Llama2c &s :
         {Llama2c{"stories15M", 288, 768, 6, 6, 256}, Llama2c{"stories42M", 512, 1376, 8, 8, 1024},
          Llama2c{"stories110M", 768, 2048, 12, 12, 1024}}) {
        if (name != s.name) continue;
        c.arch = "llama";
        c.dim = s.dim;
        c.hidden_dim = s.hidden;
        c.n_layers = s.layers;
        c.n_heads = c.n_kv_heads = s.heads;
        c.head_dim = s.dim / s.heads;
        c.vocab_size = 32000;
        c.max_seq_len = s.seq;
        return true;
    }
    return false;
}

namespace {

// xorshift64* seeded per row, so that rows can be filled in parallel and
// the same seed gives the same weights everywhere.
class Random {
  public:
    explicit Random(uint64_t seed) : s_(mix(seed)) {}
    float uniform(float a) { // in [-a, a)
        s_ ^= s_ >> 12;
        s_ ^= s_ << 25;
        s_ ^= s_ >> 27;
        const uint32_t r = static_cast<uint32_t>((s_ * 0x2545F4914F6CDD1Dull) >> 40);
        return (static_cast<float>(r) / 16777216.0f * 2.0f - 1.0f) * a;
    }

  private:
    static uint64_t mix(uint64_t z) { // splitmix64: distinct seeds, unrelated streams
        z += 0x9E3779B97F4A7C15ull;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        return z ? z : 1;
    }
    uint64_t s_;
};

class Builder {
  public:
    Builder(Model &model, DType type, uint64_t seed)
        : model_(model), type_(type), seed_(seed), pool_(ThreadPool::physical_cores()) {}

    Matrix matrix(int64_t rows, int64_t cols) {
        const DType t = dtype_can_hold(type_, cols) ? type_ : DType::F32;
        Matrix m{nullptr, t, rows, cols};
        uint8_t *dst = model_.allocate(
            checked_mul(static_cast<uint64_t>(rows), m.row_bytes(), "synthetic matrix"));
        const float a = 1.0f / std::sqrt(static_cast<float>(cols));
        const uint64_t id = ++tensors_ << 32;
        std::vector<std::vector<float>> buf(static_cast<size_t>(pool_.size()),
                                            std::vector<float>(static_cast<size_t>(cols)));
        pool_.parallel_for(rows, 16, [&](int64_t begin, int64_t end, int thread) {
            std::vector<float> &row = buf[static_cast<size_t>(thread)];
            for (int64_t i = begin; i < end; ++i) {
                Random rng(seed_ ^ (id + static_cast<uint64_t>(i)));
                for (float &v : row)
                    v = rng.uniform(a);
                encode_row(row.data(), cols, t, dst + static_cast<size_t>(i) * m.row_bytes());
            }
        });
        m.data = dst;
        return m;
    }
    Vector vector(int64_t n, float base, float spread) {
        float *v = reinterpret_cast<float *>(model_.allocate(static_cast<size_t>(n) * 4));
        Random rng(seed_ ^ (++tensors_ << 32));
        for (int64_t i = 0; i < n; ++i)
            v[i] = base + rng.uniform(spread);
        return Vector{v, n};
    }

  private:
    Model &model_;
    DType type_;
    uint64_t seed_;
    uint64_t tensors_ = 0;
    ThreadPool pool_;
};

} // namespace

std::unique_ptr<Model> make_synthetic_model(const ModelConfig &config, DType type, uint64_t seed,
                                            bool untied) {
    auto model = std::make_unique<Model>();
    model->config = config;
    model->format = "synthetic";
    const ModelConfig &c = model->config;
    Builder b(*model, type, seed);
    ModelWeights &w = model->weights;
    w.token_embedding = b.matrix(c.vocab_size, c.dim);
    w.layers.resize(static_cast<size_t>(c.n_layers));
    for (LayerWeights &l : w.layers) {
        l.attn_norm = b.vector(c.dim, 1.0f, 0.0f);
        l.wq = b.matrix(c.q_dim(), c.dim);
        l.wk = b.matrix(c.kv_dim(), c.dim);
        l.wv = b.matrix(c.kv_dim(), c.dim);
        if (c.qk_norm) {
            l.q_norm = b.vector(c.head_dim, 1.0f, 0.0f);
            l.k_norm = b.vector(c.head_dim, 1.0f, 0.0f);
        }
        if (c.qkv_bias) {
            l.bq = b.vector(c.q_dim(), 0.0f, 0.1f);
            l.bk = b.vector(c.kv_dim(), 0.0f, 0.1f);
            l.bv = b.vector(c.kv_dim(), 0.0f, 0.1f);
        }
        l.wo = b.matrix(c.dim, c.q_dim());
        if (c.post_norms) l.post_attn_norm = b.vector(c.dim, 1.0f, 0.0f);
        l.ffn_norm = b.vector(c.dim, 1.0f, 0.0f);
        l.w_gate = b.matrix(c.hidden_dim, c.dim);
        l.w_up = b.matrix(c.hidden_dim, c.dim);
        l.w_down = b.matrix(c.dim, c.hidden_dim);
        if (c.post_norms) l.post_ffn_norm = b.vector(c.dim, 1.0f, 0.0f);
    }
    w.final_norm = b.vector(c.dim, 1.0f, 0.0f);
    w.classifier = untied ? b.matrix(c.vocab_size, c.dim) : w.token_embedding;
    return model;
}

} // namespace llm
