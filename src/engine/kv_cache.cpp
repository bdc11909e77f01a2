#include "engine/kv_cache.h"

#include "common/checked_math.h"
#include "common/error.h"

namespace llm {

KVCache::KVCache(int32_t n_layers, int32_t n_ctx, int32_t n_kv_heads, int32_t head_dim)
    : n_ctx_(n_ctx), n_kv_heads_(n_kv_heads), head_dim_(head_dim) {
    const uint64_t kv_dim =
        checked_mul(static_cast<uint64_t>(n_kv_heads), static_cast<uint64_t>(head_dim), "KV cache");
    uint64_t n = checked_mul(
        checked_mul(static_cast<uint64_t>(n_layers), static_cast<uint64_t>(n_ctx), "KV cache"),
        kv_dim, "KV cache");
    try {
        k_.assign(n, 0.0f);
        v_.assign(n, 0.0f);
    } catch (const std::bad_alloc &) {
        fail(LLM_ERR_OUT_OF_MEMORY, "cannot allocate a KV cache of ", n_ctx, " positions (",
             2 * n * sizeof(float), " bytes)");
    }
}

} // namespace llm
