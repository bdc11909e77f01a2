// Keys and values of every position seen so far, per layer, so a new token
// attends to the past without recomputing it. Sized by the context length the
// caller asked for, not the model's maximum.
//
// Layout [layer][kv head][position][head_dim]: one KV head's keys of all
// positions are contiguous, and attention reads them as one sequential
// stream per KV head. (Rows of all heads per position would make each
// head's read a head_dim piece strided by a whole row, which the hardware
// prefetchers do not follow.)
//
// Values are stored as fp32, or as fp16 when the caller asks for it
// (llm_context_params.kv_type): half the memory, and half the bytes each
// decoded token reads from the cache, for keys and values rounded to fp16
// (11 significant bits). The attention kernels widen them as they read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/tensor.h"

namespace llm {

class KVCache {
  public:
    // type: DType::F32 or DType::F16.
    KVCache(int32_t n_layers, int32_t n_ctx, int32_t n_kv_heads, int32_t head_dim, DType type);

    int32_t n_layers() const { return n_layers_; }
    int32_t n_ctx() const { return n_ctx_; }
    int32_t n_kv_heads() const { return n_kv_heads_; }
    int32_t head_dim() const { return head_dim_; }
    DType type() const { return type_; }
    // Stores head_dim floats as the key and value of `kv_head` at `pos`.
    void store(int32_t layer, int32_t kv_head, int32_t pos, const float *key, const float *value);
    // The first key (value) of `layer`: KV head 0, position 0.
    const void *keys(int32_t layer) const { return &k_[offset(layer, 0, 0)]; }
    const void *values(int32_t layer) const { return &v_[offset(layer, 0, 0)]; }
    // Values from one KV head's first key to the next head's.
    int64_t head_stride() const { return static_cast<int64_t>(n_ctx_) * head_dim_; }
    size_t bytes() const { return k_.size() + v_.size(); }
    // Bytes of one position's keys and values in one layer.
    size_t position_bytes() const {
        return 2 * static_cast<size_t>(n_kv_heads_) * static_cast<size_t>(head_dim_) * value_bytes_;
    }

    // Same layers, KV heads and head_dim (types and lengths may differ).
    bool same_shape(const KVCache &other) const;
    // Positions [0, n) of `src` (same shape) copied in, converted when the
    // types differ (fp16 to fp32 exactly, fp32 to fp16 rounded and clamped).
    void copy_prefix_from(const KVCache &src, int32_t n);
    // Bytes serialize(n) writes for a cache of this shape stored as `type`.
    size_t serialized_bytes(int32_t n, DType type) const;
    size_t serialized_bytes(int32_t n) const { return serialized_bytes(n, type_); }
    // Writes positions [0, n) in this cache's type: per layer, the keys as
    // [kv head][position][head_dim], then the values likewise.
    void serialize(int32_t n, uint8_t *out) const;
    // Reads what serialize(n) of a cache of this shape and of `type` wrote
    // (serialized_bytes(n, type) bytes), converting as copy_prefix_from.
    void deserialize(int32_t n, DType type, const uint8_t *in);

  private:
    // In bytes.
    size_t offset(int32_t layer, int32_t kv_head, int32_t pos) const {
        return ((static_cast<size_t>(layer) * static_cast<size_t>(n_kv_heads_) +
                 static_cast<size_t>(kv_head)) *
                    static_cast<size_t>(n_ctx_) +
                static_cast<size_t>(pos)) *
               static_cast<size_t>(head_dim_) * value_bytes_;
    }
    void check_positions(int32_t n, const char *what) const;
    int32_t n_layers_, n_ctx_, n_kv_heads_, head_dim_;
    DType type_;
    size_t value_bytes_;
    std::vector<uint8_t> k_, v_;
};

} // namespace llm
