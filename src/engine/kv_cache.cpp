#include "engine/kv_cache.h"

#include <algorithm>
#include <cstring>

#include "common/checked_math.h"
#include "common/error.h"
#include "kernels/float_convert.h"
#include "kernels/kernels.h"

namespace llm {

KVCache::KVCache(int32_t n_layers, int32_t n_ctx, int32_t n_kv_heads, int32_t head_dim, DType type)
    : n_layers_(n_layers), n_ctx_(n_ctx), n_kv_heads_(n_kv_heads), head_dim_(head_dim), type_(type),
      value_bytes_(type == DType::F16 ? 2 : 4) {
    if (type != DType::F32 && type != DType::F16)
        fail(LLM_ERR_INTERNAL, "KV cache: unsupported type ", dtype_name(type));
    const uint64_t kv_dim =
        checked_mul(static_cast<uint64_t>(n_kv_heads), static_cast<uint64_t>(head_dim), "KV cache");
    uint64_t n = checked_mul(
        checked_mul(static_cast<uint64_t>(n_layers), static_cast<uint64_t>(n_ctx), "KV cache"),
        kv_dim, "KV cache");
    n = checked_mul(n, static_cast<uint64_t>(value_bytes_), "KV cache");
    try {
        k_.assign(n, 0);
        v_.assign(n, 0);
    } catch (const std::bad_alloc &) {
        fail(LLM_ERR_OUT_OF_MEMORY, "cannot allocate a KV cache of ", n_ctx, " positions (", 2 * n,
             " bytes)");
    }
}

void KVCache::store(int32_t layer, int32_t kv_head, int32_t pos, const float *key,
                    const float *value) {
    uint8_t *k = &k_[offset(layer, kv_head, pos)], *v = &v_[offset(layer, kv_head, pos)];
    const size_t n = static_cast<size_t>(head_dim_);
    if (type_ == DType::F32) {
        std::memcpy(k, key, n * 4);
        std::memcpy(v, value, n * 4);
        return;
    }
    // Clamped to fp16's largest finite value: an infinite key would turn
    // every score of its head into NaN. With the SIMD unit: one value at a
    // time (4.8-7.1 ns each on the Zen 5 VM), the store cost a stories110M
    // token about what reading fp16 instead of fp32 keys and values saved
    // (88-131 against 50-100 us).
    narrow_f16(key, k, static_cast<int64_t>(n));
    narrow_f16(value, v, static_cast<int64_t>(n));
}

namespace {

size_t value_bytes_of(DType t) {
    return t == DType::F16 ? 2 : 4;
}

// n values from src (of type st) to dst (of type dt), both F32 or F16.
void convert_values(const uint8_t *src, DType st, uint8_t *dst, DType dt, size_t n) {
    if (st == dt) {
        std::memcpy(dst, src, n * value_bytes_of(st));
    } else if (st == DType::F32) {
        // Through an aligned buffer (src may not be); no allocation, so a
        // state load that has passed its checks cannot fail half-way.
        float tmp[256];
        for (size_t i = 0; i < n; i += 256) {
            const size_t m = std::min<size_t>(256, n - i);
            std::memcpy(tmp, src + 4 * i, m * 4);
            narrow_f16(tmp, dst + 2 * i, static_cast<int64_t>(m));
        }
    } else {
        for (size_t i = 0; i < n; ++i) {
            uint16_t h;
            std::memcpy(&h, src + 2 * i, 2);
            const float f = f16_to_f32(h);
            std::memcpy(dst + 4 * i, &f, 4);
        }
    }
}

} // namespace

void KVCache::check_positions(int32_t n, const char *what) const {
    if (n < 0 || n > n_ctx_)
        fail(LLM_ERR_CONTEXT_FULL, what, ": ", n, " positions do not fit a cache of ", n_ctx_);
}

bool KVCache::same_shape(const KVCache &other) const {
    return n_layers_ == other.n_layers_ && n_kv_heads_ == other.n_kv_heads_ &&
           head_dim_ == other.head_dim_;
}

void KVCache::copy_prefix_from(const KVCache &src, int32_t n) {
    if (!same_shape(src)) fail(LLM_ERR_STATE_MISMATCH, "KV caches of different shapes");
    check_positions(n, "KV prefix copy");
    if (n > src.n_ctx_)
        fail(LLM_ERR_INVALID_ARGUMENT, "KV prefix copy: the source holds ", src.n_ctx_,
             " positions, not ", n);
    if (&src == this || n == 0) return;
    const size_t values = static_cast<size_t>(n) * static_cast<size_t>(head_dim_);
    for (int32_t l = 0; l < n_layers_; ++l)
        for (int32_t h = 0; h < n_kv_heads_; ++h) {
            convert_values(&src.k_[src.offset(l, h, 0)], src.type_, &k_[offset(l, h, 0)], type_,
                           values);
            convert_values(&src.v_[src.offset(l, h, 0)], src.type_, &v_[offset(l, h, 0)], type_,
                           values);
        }
}

size_t KVCache::serialized_bytes(int32_t n, DType type) const {
    if (n < 0) fail(LLM_ERR_INVALID_ARGUMENT, "KV state: negative position count");
    uint64_t b = checked_mul(static_cast<uint64_t>(n_layers_) * 2,
                             static_cast<uint64_t>(n_kv_heads_), "KV state");
    b = checked_mul(b, static_cast<uint64_t>(head_dim_), "KV state");
    b = checked_mul(b, static_cast<uint64_t>(n), "KV state");
    b = checked_mul(b, static_cast<uint64_t>(value_bytes_of(type)), "KV state");
    if (b > SIZE_MAX) fail(LLM_ERR_OUT_OF_MEMORY, "KV state of ", b, " bytes");
    return static_cast<size_t>(b);
}

void KVCache::serialize(int32_t n, uint8_t *out) const {
    check_positions(n, "KV state");
    const size_t run = static_cast<size_t>(n) * static_cast<size_t>(head_dim_) * value_bytes_;
    for (int32_t l = 0; l < n_layers_; ++l)
        for (const std::vector<uint8_t> *part : {&k_, &v_})
            for (int32_t h = 0; h < n_kv_heads_; ++h) {
                if (run) std::memcpy(out, &(*part)[offset(l, h, 0)], run);
                out += run;
            }
}

void KVCache::deserialize(int32_t n, DType type, const uint8_t *in) {
    check_positions(n, "KV state");
    if (type != DType::F32 && type != DType::F16)
        fail(LLM_ERR_FORMAT, "KV state: unsupported type ", dtype_name(type));
    const size_t values = static_cast<size_t>(n) * static_cast<size_t>(head_dim_);
    const size_t run = values * value_bytes_of(type);
    for (int32_t l = 0; l < n_layers_; ++l)
        for (std::vector<uint8_t> *part : {&k_, &v_})
            for (int32_t h = 0; h < n_kv_heads_; ++h) {
                if (values) convert_values(in, type, &(*part)[offset(l, h, 0)], type_, values);
                in += run;
            }
}

} // namespace llm
