// The forward pass: token ids in, next-token logits out. One implementation
// serves every model family; the ModelConfig says which variant (RoPE layout,
// biases, theta, eps) to apply.
//
//   tokens -> embedding -> n_layers x [attention block, FFN block] -> final norm -> logits
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/kv_cache.h"
#include "model/model.h"

namespace llm {

class ThreadPool;

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
    ThreadPool *pool() { return pool_.get(); }

  private:
    void ensure_batch(int64_t n);
    void attention_block(int32_t layer, int64_t n, int32_t pos0);
    void ffn_block(int32_t layer, int64_t n);

    const Model &model_;
    const ModelConfig &cfg_;
    KVCache cache_;
    std::unique_ptr<ThreadPool> pool_;
    int64_t batch_cap_ = 0;
    // Activations for a batch of tokens, row-major [token][feature].
    std::vector<float> x_, xb_, q_, k_, v_, att_out_, hb_, hb2_;
    std::vector<float> rope_cs_; // [token][head_dim/2][cos, sin]
    std::vector<float> scores_;  // [thread][head][n_ctx] attention scores
};

} // namespace llm
