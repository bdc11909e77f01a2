// Keys and values of every position seen so far, per layer, so a new token
// attends to the past without recomputing it. Sized by the context length the
// caller asked for, not the model's maximum.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace llm {

class KVCache {
  public:
    KVCache(int32_t n_layers, int32_t n_ctx, int32_t kv_dim);

    int32_t n_ctx() const { return n_ctx_; }
    float *key(int32_t layer, int32_t pos) { return &k_[offset(layer, pos)]; }
    float *value(int32_t layer, int32_t pos) { return &v_[offset(layer, pos)]; }
    const float *key(int32_t layer, int32_t pos) const { return &k_[offset(layer, pos)]; }
    const float *value(int32_t layer, int32_t pos) const { return &v_[offset(layer, pos)]; }
    size_t bytes() const { return (k_.size() + v_.size()) * sizeof(float); }

  private:
    size_t offset(int32_t layer, int32_t pos) const {
        return (static_cast<size_t>(layer) * static_cast<size_t>(n_ctx_) +
                static_cast<size_t>(pos)) *
               static_cast<size_t>(kv_dim_);
    }
    int32_t n_ctx_, kv_dim_;
    std::vector<float> k_, v_;
};

} // namespace llm
