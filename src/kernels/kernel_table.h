// The per-instruction-set kernels behind kernels.h, one table per SIMD
// level. kernels_scalar.cpp fills the portable reference table; each
// kernels_<isa>.cpp (compiled with its own -m flags, see CMakeLists.txt)
// overrides the entries it has faster versions of. kernels.cpp calls
// through the table of active_simd_level() and does the threading.
//
// The interface is plain pointers and sizes on purpose: the ISA files
// include nothing with inline functions of external linkage, so no copy of
// such a function compiled with AVX-512 can end up shared with code that
// runs on a CPU without it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kernels/quant.h"
#include "kernels/quant_blocks.h"
#include "kernels/simd_level.h"

namespace llm {

// Matrix x vector over lanes of rows: y[l][k] = dot(row k of lane l, x)
// for l < n_lanes, k < n_steps, where lane l's rows start at w[l],
// `stride` bytes apart, and hold `cols` values of the kernel's weight
// type. The SIMD kernels read matvec_row_streams() lanes at a time, step
// by step, as that many concurrent streams (see for_lanes in
// simd_kernels.inc), and the lanes left over one row at a time. A matrix
// cut into lanes and walked a few steps per call keeps its streams running
// from call to call (matmul_group).
using MatvecFn = void (*)(const uint8_t *const *w, size_t stride, int64_t cols, const float *x,
                          float *const *y, int64_t n_lanes, int64_t n_steps);
// The Q8_0 variant takes x already quantized (cols / 32 blocks).
using MatvecQ8Fn = void (*)(const uint8_t *const *w, size_t stride, int64_t cols,
                            const BlockQ8Act *x, float *const *y, int64_t n_lanes, int64_t n_steps);
// The Q8_0 variant for n_tokens tokens at once (batched decode): x holds
// each token's cols / 32 blocks one token after another, and token t's
// result for row k of lane l goes to y[l][t * ldy + k]. Each (row, token)
// gets exactly the sums and float operations the one-token kernel gives
// it, so the results are bit-identical to n_tokens separate calls; each
// weight block is loaded once for several tokens.
using MatvecQ8TokensFn = void (*)(const uint8_t *const *w, size_t stride, int64_t cols,
                                  const BlockQ8Act *x, int64_t n_tokens, float *const *y,
                                  int64_t ldy, int64_t n_lanes, int64_t n_steps);
// GGUF's block types (quant_blocks.h) take x quantized like Q8_0's and, per
// 32-value block b, xsum[b] = x[b].scale * (sum of x[b].q).
using MatvecBlocksFn = void (*)(const uint8_t *const *w, size_t stride, int64_t cols,
                                const BlockQ8Act *x, const float *xsum, float *const *y,
                                int64_t n_lanes, int64_t n_steps);
// out[r * cols + c] = W[r][c] widened to fp32, for r < n_rows.
using WidenFn = void (*)(const uint8_t *w, size_t stride, int64_t cols, float *out, int64_t n_rows);

using AttentionFn = void (*)(const float *q, const void *k, const void *v, int64_t head_stride,
                             int64_t n_pos, int64_t head_dim, int64_t h0, int64_t n_heads,
                             int64_t group, float scale, float *scores, float *out);

struct KernelTable {
    SimdLevel level = SimdLevel::Scalar;

    MatvecFn matvec_f32 = nullptr;
    MatvecFn matvec_bf16 = nullptr;
    MatvecFn matvec_f16 = nullptr;
    MatvecQ8Fn matvec_q8_0 = nullptr;
    MatvecQ8TokensFn matvec_q8_0_tokens = nullptr; // null: matvec_q8_0 per token
    WidenFn widen_bf16 = nullptr;
    WidenFn widen_f16 = nullptr;
    WidenFn widen_q8_0 = nullptr;
    // GGUF's block types: the 32-value ones (quant_legacy.cpp and
    // quant_legacy_simd.inc) and the 256-value K types (quant_kquants.cpp and
    // quant_kquants_simd.inc).
    MatvecBlocksFn matvec_q4_0 = nullptr, matvec_q4_1 = nullptr;
    MatvecBlocksFn matvec_q5_0 = nullptr, matvec_q5_1 = nullptr;
    MatvecBlocksFn matvec_q4_k = nullptr, matvec_q5_k = nullptr, matvec_q6_k = nullptr;
    WidenFn widen_q4_0 = nullptr, widen_q4_1 = nullptr;
    WidenFn widen_q5_0 = nullptr, widen_q5_1 = nullptr;
    WidenFn widen_q4_k = nullptr, widen_q5_k = nullptr, widen_q6_k = nullptr;
    // out = n values of x as fp16 bytes, each as f32_to_f16_clamped gives it
    // (the KV cache's fp16 store).
    void (*narrow_f16)(const float *x, uint8_t *out, int64_t n) = nullptr;

    // Matrix x matrix, fp32: y[t * ldy + r] = sum_k xt[k * ldxt + t] * w[r * ldw + k]
    // for t < n_tokens, r < n_rows, k < cols. The activations come packed
    // transposed ([k][token], see pack_transposed), ldxt a multiple of 16
    // with zeros past n_tokens.
    void (*gemm_f32)(const float *w, int64_t ldw, int64_t n_rows, const float *xt, int64_t ldxt,
                     int64_t n_tokens, int64_t cols, float *y, int64_t ldy) = nullptr;

    // Batched bf16 weights on AMX tiles (kernels_amx.cpp; null elsewhere),
    // for cols % 32 == 0. pack_act_bf16x3 splits the fp32 activations
    // (n_tokens x cols, row-major) into three bf16 parts in the tiles'
    // layout, act_bf16x3_elems(n_tokens, cols) values; gemm_bf16x3 then
    // computes y[t * ldy + r] = W[r] . x[t] for r < n_rows, t < n_tokens,
    // from bf16 rows `stride` bytes apart.
    void (*pack_act_bf16x3)(const float *x, int64_t n_tokens, int64_t cols,
                            uint16_t *out) = nullptr;
    void (*gemm_bf16x3)(const uint8_t *w, size_t stride, int64_t n_rows, const uint16_t *xb,
                        int64_t n_tokens, int64_t cols, float *y, int64_t ldy,
                        void *scratch) = nullptr;

    // Batched Q8_0 weights with int8 products (AVX-512 VNNI, AVX-VNNI and
    // NEON's dot product; null elsewhere): y[t * ldy + r] = sum over blocks b of scale_w[r][b] *
    // scale_x[t][b] * (int8 dot product of the block), for r < n_rows,
    // t < n_tokens, from Q8_0 rows `stride` bytes apart and activations
    // quantized per token as quantize_act_q8 does, in the panel layout below
    // (pack_act_q8 in kernels.cpp). The same sums as the decode kernel's.
    void (*gemm_q8_0)(const uint8_t *w, size_t stride, int64_t n_rows, const uint8_t *xq,
                      int64_t n_tokens, int64_t cols, float *y, int64_t ldy) = nullptr;

    // The same from rows in the int8 form of the block types
    // (int8_form_row in quant_blocks.h), with their offsets.
    void (*gemm_q8_scaled)(const uint8_t *w, size_t stride, int64_t n_rows, const uint8_t *xq,
                           int64_t n_tokens, int64_t cols, float *y, int64_t ldy) = nullptr;

    // The same from Q4_0 rows (null where gemm_q8_0 is), unpacked
    // kQ4PanelRows at a time into `scratch` (gemm_q4_0_scratch_bytes): the
    // values gemm_q8_scaled gives from the rows' int8 form.
    void (*gemm_q4_0)(const uint8_t *w, size_t stride, int64_t n_rows, const uint8_t *xq,
                      int64_t n_tokens, int64_t cols, float *y, int64_t ldy,
                      void *scratch) = nullptr;

    // Activations to Q8 blocks (n % 32 == 0): scale = max|x| / 127,
    // q = round-half-even(x / scale).
    void (*quantize_act_q8)(const float *x, BlockQ8Act *out, int64_t n) = nullptr;

    void (*rmsnorm)(float *out, const float *x, const float *weight, int64_t n,
                    float eps) = nullptr;
    void (*softmax)(float *x, int64_t n) = nullptr;
    void (*silu_mul)(float *a, const float *b, int64_t n) = nullptr;
    // a[i] = gelu_tanh(a[i]) * b[i] (gelu_mul in kernels.h)
    void (*gelu_mul)(float *a, const float *b, int64_t n) = nullptr;
    void (*add)(float *a, const float *b, int64_t n) = nullptr;
    float (*dot)(const float *a, const float *b, int64_t n) = nullptr;
    float (*max)(const float *x, int64_t n) = nullptr; // n >= 1, NaN-free input

    // One key block of the batched attention's online softmax
    // (attention_batch in kernels.h). s[r * ld + p] holds row r's scores at
    // the block's positions p < n_pos, of which it sees those from first[r]
    // (0 when first is null) up to visible[r] (0 <= first[r], visible[r] <=
    // n_pos; none when first[r] >= visible[r]: a sliding window's lower
    // bound). On return s[r * ld + p] = exp(s - m'[r]) for those and 0 for
    // the rest, with m'[r] = max(m[r], the visible scores); c[r] =
    // exp(m[r] - m'[r]) rescales what earlier blocks summed, and l[r] =
    // l[r] * c[r] + the row's new sum. m starts at kNoScore.
    void (*softmax_block)(float *s, int64_t ld, int64_t n_rows, int64_t n_pos, const int64_t *first,
                          const int64_t *visible, float *m, float *l, float *c) = nullptr;

    // Attention of query heads [h0, h0 + n_heads) of one token over n_pos
    // positions (see attention_heads in kernels.h), one entry per KV cache
    // type: k and v point to fp32 or fp16 values.
    AttentionFn attention_f32 = nullptr;
    AttentionFn attention_f16 = nullptr;
};

// The running max of a softmax_block row before its first block: finite, so
// that no inf - inf appears, and far below any score.
constexpr float kNoScore = -1e30f;

// n rounded up to a multiple of m.
static inline int64_t round_up(int64_t n, int64_t m) {
    return (n + m - 1) / m * m;
}
// Tokens rounded up to whole 16-token tiles.
static inline int64_t amx_padded_tokens(int64_t n_tokens) {
    return round_up(n_tokens, 16);
}
// Size of pack_act_bf16x3's output: padded tokens x 32-value k steps x 3
// parts x 32 values.
static inline int64_t act_bf16x3_elems(int64_t n_tokens, int64_t cols) {
    return amx_padded_tokens(n_tokens) * (cols / 32) * 3 * 32;
}
// gemm_bf16x3's scratch, from the caller (the ISA files keep no
// std::vector, see above): fp32 accumulators for kAmxRowBlock rows x the
// padded tokens, then one zero-padded 16-row tile of weights.
constexpr int64_t kAmxRowBlock = 256;
static inline int64_t amx_accumulator_floats(int64_t n_tokens) {
    return kAmxRowBlock * amx_padded_tokens(n_tokens);
}
static inline size_t gemm_bf16x3_scratch_bytes(int64_t n_tokens, int64_t cols) {
    return static_cast<size_t>(amx_accumulator_floats(n_tokens) * 4 + 16 * cols * 2);
}

// gemm_q8_0's activations: panels of 16 tokens (zeros past n_tokens), each
// holding, per 32-value block: int32 corr[16], -128 x the sum of each
// token's quants (on x86 the kernel multiplies weights + 128, which are
// unsigned, by the signed quants, and corr takes the extra 128 x sum back
// out; NEON's signed dot product does not need it); float
// scale[16]; then the quants as 8 groups of 4 values x 16 tokens, value
// 4j + i of token t at byte 64 j + 4 t + i.
constexpr int64_t kQ8PanelTokens = 16;
constexpr int64_t kQ8PanelBlockBytes = 64 + 64 + 512;
static inline int64_t act_q8_panel_bytes(int64_t cols) {
    return cols / 32 * kQ8PanelBlockBytes;
}
static inline int64_t act_q8_bytes(int64_t n_tokens, int64_t cols) {
    return round_up(n_tokens, kQ8PanelTokens) / kQ8PanelTokens * act_q8_panel_bytes(cols);
}

// gemm_q4_0's scratch: kQ4PanelRows unpacked rows, each the cols / 32
// fp32 scales then the cols codes (q4_0_unpack_row in simd_kernels.inc).
constexpr int64_t kQ4PanelRows = 24;
static inline int64_t q4_0_codes_row_bytes(int64_t cols) {
    return cols / 32 * 4 + cols;
}
static inline size_t gemm_q4_0_scratch_bytes(int64_t cols) {
    return static_cast<size_t>(kQ4PanelRows * q4_0_codes_row_bytes(cols));
}

// The table of the active SIMD level (built on first use).
const KernelTable &kernel_table();

// Fillers, one per file. Each returns false (leaving t alone) when its file
// was compiled without that instruction set (another CPU architecture).
void fill_scalar_kernels(KernelTable &t);
// The scalar reference entries of the block types (fill_scalar_kernels
// calls them).
void fill_scalar_legacy_kernels(KernelTable &t);
void fill_scalar_kquant_kernels(KernelTable &t);
bool fill_avx2_kernels(KernelTable &t);
bool fill_avx2vnni_kernels(KernelTable &t);
bool fill_avx512_kernels(KernelTable &t);
bool fill_avx512vnni_kernels(KernelTable &t);
bool fill_amx_kernels(KernelTable &t);
// The AMX-INT8 entries (kernels_amx_q8.cpp), which fill_amx_kernels adds
// where the CPU has AMX-INT8.
bool fill_amx_int8_kernels(KernelTable &t);
bool fill_neon_kernels(KernelTable &t);
bool fill_neondot_kernels(KernelTable &t);

} // namespace llm
