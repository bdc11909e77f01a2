// The forward pass: token ids in, next-token logits out. One implementation
// serves every model family; the ModelConfig says which variant (RoPE layout,
// biases, theta per layer, eps, norms present, activation, attention window
// per layer, scales) to apply.
//
//   tokens -> embedding -> n_layers x [attention block, FFN block] -> final norm -> logits
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/forward_profile.h"
#include "engine/kv_cache.h"
#include "model/model.h"

namespace llm {

class ThreadPool;
struct MatmulOut;

// Per-context scratch memory and cache for running `model`.
class Transformer {
  public:
    // kv_type: how the KV cache stores keys and values (F32 or F16).
    Transformer(const Model &model, int32_t n_ctx, int n_threads, DType kv_type = DType::F32);
    ~Transformer();

    // Runs tokens at positions pos0, pos0+1, ... and writes the last token's
    // logits. Prompt tokens go through each layer together (batched).
    // Returns how many tokens entered the cache: fewer than n only if
    // `cancel` was raised (checked between layers).
    int64_t forward(const int32_t *tokens, int64_t n, int32_t pos0, float *logits,
                    const std::atomic<bool> *cancel);

    // Throws LLM_ERR_TOKEN_OUT_OF_RANGE for an id outside the vocabulary,
    // then LLM_ERR_CONTEXT_FULL unless positions pos0 .. pos0 + n - 1 fit the
    // cache. forward() calls it first; callers with state to keep intact on
    // bad input (the C layer) call it before touching that state.
    void check_input(const int32_t *tokens, int64_t n, int32_t pos0) const;

    int32_t n_ctx() const { return cache_.n_ctx(); }
    // The KV cache, for saved states and prefix copies (context_state.h).
    KVCache &cache() { return cache_; }
    const KVCache &cache() const { return cache_; }
    // Most tokens of a prompt that go through the layers together; longer
    // prompts are processed in chunks of this size.
    int64_t max_batch() const { return max_batch_; }
    // How many of `left` prompt tokens forward() runs as its next chunk
    // (at most max_batch()). forward() on exactly that many runs one chunk:
    // a prompt fed chunk by chunk this way is computed as in one call.
    int64_t chunk_tokens(int64_t left) const;
    // Activation memory one token of such a chunk takes (bytes).
    static int64_t batch_bytes_per_token(const ModelConfig &config);
    ThreadPool *pool() { return pool_.get(); }
    // Stage times of the forward passes from now on are added to `profile`
    // (forward_profile.h); null stops that. The profile must outlive its use.
    void set_profile(ForwardProfile *profile) { profile_ = profile; }
    // With `hidden` set, forward() also writes each token's final-normed
    // hidden state (the embedding) to hidden[t * dim], t < n, and a null
    // `logits` skips the classifier. Null stops that.
    void set_hidden_output(float *hidden) { hidden_ = hidden; }

  private:
    // Runs a decode step of several sequences through this transformer's
    // scratch (batch_decode.h).
    friend class BatchDecoder;

    void ensure_batch(int64_t n);
    void attention_block(int32_t layer, int64_t n, int32_t pos0);
    // The attention of such a step: row t against its own sequence's cache
    // (defined in batch_decode.cpp).
    void attention_rows(int32_t layer, int64_t n);
    void products(const MatmulOut *outs, int count, const float *x, int64_t n);
    void ffn_block(int32_t layer, int64_t n);

    const Model &model_;
    const ModelConfig &cfg_;
    KVCache cache_;
    std::unique_ptr<ThreadPool> pool_;
    int64_t max_batch_ = 0, batch_cap_ = 0;
    // Activations for a batch of tokens, row-major [token][feature]. q_ to
    // hb2_ point into shared_ (see scratch_layout in transformer.cpp).
    std::vector<float> x_, xb_, shared_;
    float *q_ = nullptr, *k_ = nullptr, *v_ = nullptr, *att_out_ = nullptr;
    float *hb_ = nullptr, *hb2_ = nullptr;
    // RoPE's angles per token, one table per distinct theta of the layers:
    // [token][table][head_dim/2][cos, sin]; layer l reads table
    // rope_table_[l] of rope_thetas_.
    std::vector<float> rope_cs_;
    std::vector<float> rope_thetas_;
    std::vector<int32_t> rope_table_;
    std::vector<float> scores_; // [thread][head][n_ctx] attention scores
    ForwardProfile *profile_ = nullptr;
    // Set during a multi-sequence step: row t is one token of another
    // sequence, at position row_pos_[t], with its keys and values in
    // row_cache_[t]. row_scores_ is attention_rows' [thread][head][n_ctx].
    const int32_t *row_pos_ = nullptr;
    KVCache *const *row_cache_ = nullptr;
    // Such a step keeps each row's lone-decode arithmetic (BatchDecoder's exact).
    bool exact_rows_ = false;
    std::vector<float> row_scores_, row_logits_;
    float *hidden_ = nullptr;
};

} // namespace llm
