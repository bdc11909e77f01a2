#include "kernels/quant_blocks.h"

#include <cstring>

#include "common/error.h"

namespace llm {

namespace {
bool is_kquant(DType t) {
    return t == DType::Q4_K || t == DType::Q5_K || t == DType::Q6_K;
}
} // namespace

void quantize_row_blocks(DType t, const float *x, uint8_t *row, int64_t n) {
    if (block_type_bytes(t) == 0) fail(LLM_ERR_INTERNAL, dtype_name(t), " is not a block type");
    if (is_kquant(t))
        quantize_row_kquant(t, x, row, n);
    else
        quantize_row_legacy(t, x, row, n);
}

void dequantize_row_blocks(DType t, const uint8_t *row, float *out, int64_t n) {
    if (block_type_bytes(t) == 0) fail(LLM_ERR_INTERNAL, dtype_name(t), " is not a block type");
    if (is_kquant(t))
        dequantize_row_kquant(t, row, out, n);
    else
        dequantize_row_legacy(t, row, out, n);
}

bool has_int8_form(DType t) {
    switch (t) {
    case DType::Q4_0:
    case DType::Q4_1:
    case DType::Q5_0:
    case DType::Q5_1:
    case DType::Q4_K:
    case DType::Q5_K: return true;
    default: return false;
    }
}

void int8_form_row(DType t, const uint8_t *row, uint8_t *out, int64_t n) {
    if (!has_int8_form(t)) fail(LLM_ERR_INTERNAL, dtype_name(t), " has no int8 form");
    if (is_kquant(t))
        int8_form_row_kquant(t, row, out, n);
    else
        int8_form_row_legacy(t, row, out, n);
}

void repack_q8_0_from_gguf(const uint8_t *src, uint8_t *dst, int64_t n) {
    for (int64_t b = 0; b < n / kQ8BlockSize; ++b) {
        const uint8_t *blk = src + static_cast<size_t>(b) * kQ8_0FileBytes;
        std::memcpy(dst + 2 * b, blk, 2);
        std::memcpy(dst + q8_0_quants_offset(n) + b * kQ8BlockSize, blk + 2, kQ8BlockSize);
    }
}

void repack_q8_0_to_gguf(const uint8_t *src, uint8_t *dst, int64_t n) {
    for (int64_t b = 0; b < n / kQ8BlockSize; ++b) {
        uint8_t *blk = dst + static_cast<size_t>(b) * kQ8_0FileBytes;
        std::memcpy(blk, src + 2 * b, 2);
        std::memcpy(blk + 2, src + q8_0_quants_offset(n) + b * kQ8BlockSize, kQ8BlockSize);
    }
}

} // namespace llm
