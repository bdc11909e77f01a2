#include "engine/transformer.h"

#include <algorithm>
#include <cmath>

#include "common/error.h"
#include "kernels/kernels.h"
#include "kernels/thread_pool.h"

namespace llm {

namespace {
// Prompts are processed in chunks of at most this many tokens: enough to
// keep the matrix products arithmetic-bound. (Each chunk reads every weight
// once more: at 64, a 128-token prompt on AMX tiles spent a sixth of its
// time re-reading the weights.)
constexpr int64_t kMaxBatch = 128;
// ... and at least this many (one register tile of tokens), and fewer than
// kMaxBatch when a chunk's activations would pass a share of the weights'
// bytes: what a model should hold is its weights and KV cache. With 128-token
// chunks, stories15M in Q8_0 (16 MB of weights) peaked at 1.18x weights +
// KV; at 48 tokens, 1.09x. The 0.5B and 110M shapes keep 128 in every
// weight type (at 1/32, 110M's Q8_0 prompts took two chunks: 8% slower).
constexpr int64_t kMinBatch = 16;
constexpr int64_t kScratchShare = 24; // activations <= weights / 24

// The per-token steps of a batch (norms, RoPE, SwiGLU's gate, residuals)
// are split over the pool in groups of this many tokens; a decode step's
// single token runs them inline. Left on one thread, they kept the other
// one idle for about a tenth of a 2-thread prefill.
constexpr int64_t kTokenGrain = 8;

// fn(t) for t < n, over the pool.
template <typename Fn> void for_each_token(ThreadPool *pool, int64_t n, Fn fn) {
    pool->parallel_for(n, kTokenGrain, [&](int64_t t0, int64_t t1, int) {
        for (int64_t t = t0; t < t1; ++t)
            fn(t);
    });
}

// The attention block's q, k, v and output and the FFN's two hidden
// vectors are never live at once: they share one buffer, at these offsets
// (in floats, per token of capacity; each part starts on a 64-byte line).
struct ScratchLayout {
    int64_t q, k, v, att_out, hb, hb2, per_token;
};
int64_t line_up(int64_t n) {
    return (n + 15) / 16 * 16;
}
// The distinct RoPE thetas of the layers, in order of first use.
std::vector<float> rope_thetas(const ModelConfig &c) {
    std::vector<float> thetas;
    for (int32_t l = 0; l < c.n_layers; ++l)
        if (std::find(thetas.begin(), thetas.end(), c.layer_rope_theta(l)) == thetas.end())
            thetas.push_back(c.layer_rope_theta(l));
    return thetas;
}

ScratchLayout scratch_layout(const ModelConfig &c) {
    ScratchLayout l{};
    l.q = 0;
    l.k = l.q + line_up(c.q_dim());
    l.v = l.k + line_up(c.kv_dim());
    l.att_out = l.v + line_up(c.kv_dim());
    const int64_t attention_end = l.att_out + line_up(c.q_dim());
    l.hb = 0;
    l.hb2 = line_up(c.hidden_dim);
    l.per_token = std::max(attention_end, l.hb2 + line_up(c.hidden_dim));
    return l;
}
} // namespace

Transformer::Transformer(const Model &model, int32_t n_ctx, int n_threads, DType kv_type)
    : model_(model), cfg_(model.config),
      cache_(cfg_.n_layers, n_ctx, cfg_.n_kv_heads, cfg_.head_dim, kv_type),
      pool_(std::make_unique<ThreadPool>(n_threads)), rope_thetas_(rope_thetas(cfg_)) {
    for (int32_t l = 0; l < cfg_.n_layers; ++l)
        rope_table_.push_back(static_cast<int32_t>(
            std::find(rope_thetas_.begin(), rope_thetas_.end(), cfg_.layer_rope_theta(l)) -
            rope_thetas_.begin()));
    const int64_t fits = model.weight_bytes() / kScratchShare / batch_bytes_per_token(cfg_);
    max_batch_ = std::clamp(fits / kMinBatch * kMinBatch, kMinBatch, kMaxBatch);
    ensure_batch(1);
}

int64_t Transformer::batch_bytes_per_token(const ModelConfig &c) {
    // x, xb, the shared buffer, RoPE's angles, and the kernels' packed copy
    // of a matrix product's input (transposed or quantized, at most fp32 of
    // the widest input).
    const int64_t widest = std::max({c.dim, c.q_dim(), c.hidden_dim});
    const int64_t angles = c.head_dim * static_cast<int64_t>(rope_thetas(c).size());
    return 4 * (2 * c.dim + scratch_layout(c).per_token + angles + widest);
}

Transformer::~Transformer() = default;

void Transformer::ensure_batch(int64_t n) {
    if (n <= batch_cap_) return;
    const size_t N = static_cast<size_t>(n);
    try {
        x_.resize(N * cfg_.dim);
        xb_.resize(N * cfg_.dim);
        const ScratchLayout l = scratch_layout(cfg_);
        shared_.resize(N * l.per_token);
        q_ = shared_.data() + N * l.q;
        k_ = shared_.data() + N * l.k;
        v_ = shared_.data() + N * l.v;
        att_out_ = shared_.data() + N * l.att_out;
        hb_ = shared_.data() + N * l.hb;
        hb2_ = shared_.data() + N * l.hb2;
        rope_cs_.resize(N * rope_thetas_.size() * cfg_.head_dim);
        scores_.resize(static_cast<size_t>(pool_->size() * cfg_.n_heads) * cache_.n_ctx());
    } catch (const std::bad_alloc &) {
        fail(LLM_ERR_OUT_OF_MEMORY, "cannot allocate activations for a batch of ", n, " tokens");
    }
    batch_cap_ = n;
}

// The tokens of one sequence go through the batch kernels. A step of
// several sequences' tokens does too for each matrix where it has enough
// rows for them to cost less (batch_step_min_tokens); the other matrices,
// and all of them in an exact step, go through the decode kernels, each row
// computed as that sequence decoding alone would (matvec_tokens).
void Transformer::products(const MatmulOut *outs, int count, const float *x, int64_t n) {
    if (!row_pos_) {
        matmul_group(outs, count, x, n, pool_.get());
        return;
    }
    if (exact_rows_) {
        matvec_tokens(outs, count, x, n, pool_.get());
        return;
    }
    constexpr int kMaxOuts = 4; // q, k, v: the largest group
    if (count > kMaxOuts) fail(LLM_ERR_INTERNAL, "products: ", count, " matrices");
    MatmulOut batch[kMaxOuts], rows[kMaxOuts];
    int n_batch = 0, n_rows = 0;
    for (int i = 0; i < count; ++i)
        if (n >= batch_step_min_tokens(*outs[i].w))
            batch[n_batch++] = outs[i];
        else
            rows[n_rows++] = outs[i];
    if (n_batch) matmul_group(batch, n_batch, x, n, pool_.get());
    if (n_rows) matvec_tokens(rows, n_rows, x, n, pool_.get());
}

// x += Wo · attention(rmsnorm(x)) for every token of the batch (with
// post_norms: x += rmsnorm(Wo · attention(rmsnorm(x)))).
void Transformer::attention_block(int32_t layer, int64_t n, int32_t pos0) {
    const LayerWeights &lw = model_.weights.layers[static_cast<size_t>(layer)];
    const int64_t dim = cfg_.dim, q_dim = cfg_.q_dim(), kv_dim = cfg_.kv_dim();
    const int64_t hd = cfg_.head_dim;
    ThreadPool *pool = pool_.get();

    for_each_token(pool, n, [&](int64_t t) {
        rmsnorm(&xb_[t * dim], &x_[t * dim], lw.attn_norm.data, dim, cfg_.norm_eps);
    });
    const MatmulOut qkv[] = {{&lw.wq, q_}, {&lw.wk, k_}, {&lw.wv, v_}};
    {
        StageTimer timer(profile_, ForwardProfile::QKV,
                         static_cast<double>(lw.wq.bytes() + lw.wk.bytes() + lw.wv.bytes()));
        products(qkv, 3, xb_.data(), n);
    }
    const bool interleaved = cfg_.rope_style == RopeStyle::Interleaved;
    const int64_t tables = static_cast<int64_t>(rope_thetas_.size());
    const int64_t table = rope_table_[static_cast<size_t>(layer)];
    for_each_token(pool, n, [&](int64_t t) {
        if (cfg_.qkv_bias) {
            add_bias(&q_[t * q_dim], lw.bq.data, q_dim);
            add_bias(&k_[t * kv_dim], lw.bk.data, kv_dim);
            add_bias(&v_[t * kv_dim], lw.bv.data, kv_dim);
        }
        if (cfg_.qk_norm) {
            for (int32_t h = 0; h < cfg_.n_heads; ++h)
                rmsnorm(&q_[t * q_dim + h * hd], &q_[t * q_dim + h * hd], lw.q_norm.data, hd,
                        cfg_.norm_eps);
            for (int32_t h = 0; h < cfg_.n_kv_heads; ++h)
                rmsnorm(&k_[t * kv_dim + h * hd], &k_[t * kv_dim + h * hd], lw.k_norm.data, hd,
                        cfg_.norm_eps);
        }
        const float *cs = &rope_cs_[(t * tables + table) * hd];
        rope(&q_[t * q_dim], cfg_.n_heads, hd, cs, interleaved);
        rope(&k_[t * kv_dim], cfg_.n_kv_heads, hd, cs, interleaved);
        const int32_t pos = row_pos_ ? row_pos_[t] : pos0 + static_cast<int32_t>(t);
        KVCache &cache = row_cache_ ? *row_cache_[t] : cache_;
        for (int32_t j = 0; j < cfg_.n_kv_heads; ++j)
            cache.store(layer, j, pos, &k_[t * kv_dim + j * hd], &v_[t * kv_dim + j * hd]);
    });

    // Causal attention: token t sees positions 0..pos0+t, or with a window
    // only the last `window` of them. Query head h reads KV head
    // h / (n_heads / n_kv_heads) (grouped-query attention).
    const int64_t group = cfg_.n_heads / cfg_.n_kv_heads;
    const float scale = cfg_.attention_scores_scale();
    const int64_t window = cfg_.window(layer);
    const int64_t heads = cfg_.n_heads, n_ctx = cache_.n_ctx();
    const int64_t first = window > 0 ? std::max<int64_t>(0, pos0 - window + 1) : 0;
    // Bytes: every key and value of positions first .. pos0 + n - 1, read once.
    StageTimer attention_timer(profile_, ForwardProfile::Attention,
                               static_cast<double>(pos0 + n - first) *
                                   static_cast<double>(cache_.position_bytes()));
    if (row_pos_) {
        attention_rows(layer, n);
    } else if (n > 1) {
        // A batch: each KV head's query rows as GEMMs over blocks of the cache.
        attention_batch(cache_.type(), q_, cache_.keys(layer), cache_.values(layer),
                        cache_.head_stride(), n, pos0, hd, heads, cfg_.n_kv_heads, scale, att_out_,
                        pool, window);
    } else {
        // One token: its heads split evenly over the threads, each block of
        // heads done together so that each position's keys and values are
        // read once (attention_heads).
        const int64_t block = std::min(heads, (heads + pool->size() - 1) / pool->size());
        const int64_t blocks = (heads + block - 1) / block;
        pool->parallel_for(blocks, 1, [&](int64_t begin, int64_t end, int thread) {
            float *att = &scores_[static_cast<size_t>(thread * heads * n_ctx)];
            for (int64_t job = begin; job < end; ++job) {
                const int64_t h0 = job * block;
                attention_heads(cache_.type(), &q_[h0 * hd], cache_.keys(layer),
                                cache_.values(layer), cache_.head_stride(), pos0 + 1 - first, hd,
                                h0, std::min(block, heads - h0), group, scale, att,
                                &att_out_[h0 * hd], first);
            }
        });
    }
    attention_timer.stop();
    {
        StageTimer timer(profile_, ForwardProfile::Output, static_cast<double>(lw.wo.bytes()));
        const MatmulOut wo{&lw.wo, xb_.data()};
        products(&wo, 1, att_out_, n);
    }
    for_each_token(pool, n, [&](int64_t t) {
        if (cfg_.post_norms)
            rmsnorm(&xb_[t * dim], &xb_[t * dim], lw.post_attn_norm.data, dim, cfg_.norm_eps);
        add_inplace(&x_[t * dim], &xb_[t * dim], dim);
    });
}

// x += W_down · (act(W_gate · h) * (W_up · h)), h = rmsnorm(x), act = silu
// (SwiGLU) or gelu_tanh (with post_norms: x += rmsnorm(W_down · ...)).
void Transformer::ffn_block(int32_t layer, int64_t n) {
    const LayerWeights &lw = model_.weights.layers[static_cast<size_t>(layer)];
    const int64_t dim = cfg_.dim;
    ThreadPool *pool = pool_.get();
    const int64_t hidden = cfg_.hidden_dim;
    for_each_token(pool, n, [&](int64_t t) {
        rmsnorm(&xb_[t * dim], &x_[t * dim], lw.ffn_norm.data, dim, cfg_.norm_eps);
    });
    const MatmulOut gate_up[] = {{&lw.w_gate, hb_}, {&lw.w_up, hb2_}};
    {
        StageTimer timer(profile_, ForwardProfile::GateUp,
                         static_cast<double>(lw.w_gate.bytes() + lw.w_up.bytes()));
        products(gate_up, 2, xb_.data(), n);
    }
    const bool gelu = cfg_.ffn_activation == Activation::GeluTanh;
    for_each_token(pool, n, [&](int64_t t) {
        (gelu ? gelu_mul : silu_mul)(&hb_[t * hidden], &hb2_[t * hidden], hidden);
    });
    {
        StageTimer timer(profile_, ForwardProfile::Down, static_cast<double>(lw.w_down.bytes()));
        const MatmulOut down{&lw.w_down, xb_.data()};
        products(&down, 1, hb_, n);
    }
    for_each_token(pool, n, [&](int64_t t) {
        if (cfg_.post_norms)
            rmsnorm(&xb_[t * dim], &xb_[t * dim], lw.post_ffn_norm.data, dim, cfg_.norm_eps);
        add_inplace(&x_[t * dim], &xb_[t * dim], dim);
    });
}

void Transformer::check_input(const int32_t *tokens, int64_t n, int32_t pos0) const {
    for (int64_t t = 0; t < n; ++t)
        if (tokens[t] < 0 || tokens[t] >= cfg_.vocab_size)
            fail(LLM_ERR_TOKEN_OUT_OF_RANGE, "token id ", tokens[t], " is outside [0, ",
                 cfg_.vocab_size, ")");
    if (n < 0 || pos0 < 0 || n > cache_.n_ctx() - pos0)
        fail(LLM_ERR_CONTEXT_FULL, "context full: ", pos0, " of ", cache_.n_ctx(),
             " positions used, ", n, " more requested");
}

int64_t Transformer::chunk_tokens(int64_t left) const {
    // Equal chunks, rounded up to whole tiles, rather than full ones and a
    // short rest: each chunk reads all the weights either way.
    const int64_t chunks = (left + max_batch_ - 1) / max_batch_;
    const int64_t even = (left + chunks - 1) / chunks;
    return std::min(left, (even + kMinBatch - 1) / kMinBatch * kMinBatch);
}

int64_t Transformer::forward(const int32_t *tokens, int64_t n, int32_t pos0, float *logits,
                             const std::atomic<bool> *cancel) {
    const int64_t dim = cfg_.dim;
    check_input(tokens, n, pos0);
    int64_t done = 0;
    while (done < n) {
        const int64_t b = chunk_tokens(n - done);
        ensure_batch(b);
        const int32_t pos = pos0 + static_cast<int32_t>(done);
        const size_t tables = rope_thetas_.size();
        for (int64_t t = 0; t < b; ++t) {
            float *x = &x_[t * dim];
            matrix_row_f32(model_.weights.token_embedding, tokens[done + t], x);
            if (cfg_.embedding_scale != 1.0f)
                for (int64_t i = 0; i < dim; ++i)
                    x[i] *= cfg_.embedding_scale;
            for (size_t k = 0; k < tables; ++k)
                rope_angles(&rope_cs_[(static_cast<size_t>(t) * tables + k) * cfg_.head_dim],
                            cfg_.head_dim, pos + static_cast<int32_t>(t), rope_thetas_[k],
                            cfg_.rope_freq_divisors.empty() ? nullptr
                                                            : cfg_.rope_freq_divisors.data());
        }
        for (int32_t l = 0; l < cfg_.n_layers; ++l) {
            if (cancel && cancel->load(std::memory_order_relaxed)) return done;
            attention_block(l, b, pos);
            ffn_block(l, b);
        }
        if (hidden_) {
            float *h = hidden_ + done * dim;
            for_each_token(pool_.get(), b, [&](int64_t t) {
                rmsnorm(&h[t * dim], &x_[t * dim], model_.weights.final_norm.data, dim,
                        cfg_.norm_eps);
            });
        }
        done += b;
        if (done == n && logits) {
            float *last = &x_[(b - 1) * dim];
            rmsnorm(last, last, model_.weights.final_norm.data, dim, cfg_.norm_eps);
            const Matrix &classifier = model_.weights.classifier;
            StageTimer timer(profile_, ForwardProfile::Classifier,
                             static_cast<double>(classifier.bytes()));
            matmul(classifier, last, 1, logits, pool_.get());
        }
    }
    return done;
}

} // namespace llm
