// GGUF's block-quantized weight types, in the byte layout GGUF files store
// (the layouts are ggml's, as documented in its ggml-common.h; little-endian,
// fp16 as IEEE half). A row of n values is n / block_values blocks, one
// after another, so a tensor is used in place from the memory map.
//
//   type  values bytes  block
//   Q4_0    32    18    f16 d; u8 qs[16]          x = d * (q - 8)
//   Q4_1    32    20    f16 d, m; u8 qs[16]       x = d * q + m
//   Q5_0    32    22    f16 d; u8 qh[4]; qs[16]   x = d * (q - 16)
//   Q5_1    32    24    f16 d, m; u8 qh[4]; qs[16]  x = d * q + m
//   Q4_K   256   144    f16 d, dmin; u8 scales[12]; u8 qs[128]
//   Q5_K   256   176    f16 d, dmin; u8 scales[12]; u8 qh[32]; u8 qs[128]
//   Q6_K   256   210    u8 ql[128]; u8 qh[64]; i8 scales[16]; f16 d
//
// In the 32-value types, value j < 16 is the low nibble of qs[j] and value
// j + 16 its high nibble; Q5's fifth bit of value j is bit j of qh (read as
// a little-endian u32). The K types' sub-block scales and mins are described
// where they are decoded (quant_kquants.cpp).
//
// Matrix-vector products meet these weights with activations quantized per
// token into BlockQ8Act (quant.h), 32 values per block, plus each block's
// scale * sum of its quants (the term the offsets and mins multiply).
//
// (static: included by the per-ISA kernel files, see kernel_table.h.)
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/quant.h"
#include "model/tensor.h"

namespace llm {

constexpr int64_t kSuperBlockValues = 256; // the K types' block

constexpr size_t kQ4_0Bytes = 18;
constexpr size_t kQ4_1Bytes = 20;
constexpr size_t kQ5_0Bytes = 22;
constexpr size_t kQ5_1Bytes = 24;
constexpr size_t kQ8_0FileBytes = 34; // GGUF's Q8_0 block: f16 d; i8 qs[32]
constexpr size_t kQ4_KBytes = 144;
constexpr size_t kQ5_KBytes = 176;
constexpr size_t kQ6_KBytes = 210;

// Bytes of one block of a GGUF block type (0 for any other type).
static inline size_t block_type_bytes(DType t) {
    switch (t) {
    case DType::Q4_0: return kQ4_0Bytes;
    case DType::Q4_1: return kQ4_1Bytes;
    case DType::Q5_0: return kQ5_0Bytes;
    case DType::Q5_1: return kQ5_1Bytes;
    case DType::Q4_K: return kQ4_KBytes;
    case DType::Q5_K: return kQ5_KBytes;
    case DType::Q6_K: return kQ6_KBytes;
    default: return 0;
    }
}

// Quantizes n values (n a multiple of the type's block) into a row in the
// type's layout, as llama.cpp's reference quantizers do without an
// importance matrix (round to nearest; the K types search each sub-block's
// scale and min). Load time and llm-make-model only.
void quantize_row_blocks(DType t, const float *x, uint8_t *row, int64_t n);

// The reverse: n values of a row of type t as fp32 (reference, for tests
// and the scalar kernels).
void dequantize_row_blocks(DType t, const uint8_t *row, float *out, int64_t n);

// GGUF's Q8_0 row of n values (blocks of d + 32 quants) into libllm's Q8_0
// row layout (quant.h: the n / 32 scales, then the n quants), same values.
void repack_q8_0_from_gguf(const uint8_t *src, uint8_t *dst, int64_t n);
// ... and back (llm-make-model's GGUF writer).
void repack_q8_0_to_gguf(const uint8_t *src, uint8_t *dst, int64_t n);

// Prefill's int8 form of a row of a block type whose values come in groups
// of 32 sharing a scale and an offset: the Q4/Q5 types and Q4_K/Q5_K (not
// Q6_K, whose scales cover 16 values). It is the row as int8_form_row_bytes
// bytes: cols / 32 fp32 scales, cols / 32 fp32 offsets, then the cols int8
// codes, value j of group b = scales[b] * q[32 b + j] + offsets[b], exactly
// (the block's fp16 factors times 6-bit sub-scales are exact in fp32). The
// int8 GEMM (gemm_q8_scaled) computes with it the decode kernels' sums.
bool has_int8_form(DType t);
static inline int64_t int8_form_row_bytes(int64_t n) {
    return n / kQ8BlockSize * 8 + n;
}
void int8_form_row(DType t, const uint8_t *row, uint8_t *out, int64_t n);

// The two families' own halves of the above (quant_blocks.cpp dispatches).
void quantize_row_legacy(DType t, const float *x, uint8_t *row, int64_t n); // quant_legacy.cpp
void dequantize_row_legacy(DType t, const uint8_t *row, float *out, int64_t n);
void int8_form_row_legacy(DType t, const uint8_t *row, uint8_t *out, int64_t n);
void quantize_row_kquant(DType t, const float *x, uint8_t *row, int64_t n); // quant_kquants.cpp
void dequantize_row_kquant(DType t, const uint8_t *row, float *out, int64_t n);
void int8_form_row_kquant(DType t, const uint8_t *row, uint8_t *out, int64_t n); // Q4_K, Q5_K

} // namespace llm
