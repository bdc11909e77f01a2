// Keys and values of every position seen so far, per layer, so a new token
// attends to the past without recomputing it. Sized by the context length the
// caller asked for, not the model's maximum.
//
// Layout [layer][kv head][position][head_dim]: one KV head's keys of all
// positions are contiguous, and attention reads them as one sequential
// stream per KV head. (Rows of all heads per position would make each
// head's read a head_dim piece strided by a whole row, which the hardware
// prefetchers do not follow.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace llm {

class KVCache {
  public:
    KVCache(int32_t n_layers, int32_t n_ctx, int32_t n_kv_heads, int32_t head_dim);

    int32_t n_ctx() const { return n_ctx_; }
    // head_dim floats: the key (value) of `kv_head` at `pos`.
    float *key(int32_t layer, int32_t kv_head, int32_t pos) {
        return &k_[offset(layer, kv_head, pos)];
    }
    float *value(int32_t layer, int32_t kv_head, int32_t pos) {
        return &v_[offset(layer, kv_head, pos)];
    }
    // Floats from one KV head's first key to the next head's.
    int64_t head_stride() const { return static_cast<int64_t>(n_ctx_) * head_dim_; }
    size_t bytes() const { return (k_.size() + v_.size()) * sizeof(float); }

  private:
    size_t offset(int32_t layer, int32_t kv_head, int32_t pos) const {
        return ((static_cast<size_t>(layer) * static_cast<size_t>(n_kv_heads_) +
                 static_cast<size_t>(kv_head)) *
                    static_cast<size_t>(n_ctx_) +
                static_cast<size_t>(pos)) *
               static_cast<size_t>(head_dim_);
    }
    int32_t n_ctx_, n_kv_heads_, head_dim_;
    std::vector<float> k_, v_;
};

} // namespace llm
