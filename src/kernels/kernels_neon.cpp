// AArch64 Advanced SIMD kernels: the primitives of simd_kernels.inc on
// 4-lane registers, plus an integer Q8_0 dot product. kernels_neondot.cpp
// compiles this file once more for ARMv8.2 with the dot product extension
// (LLM_NEON_DOT_TABLE): there SDOT takes Q8_0's int8 products 16 at a time,
// and batches of Q8_0 weights get the int8 GEMM (gemm_q8_0).
#include "kernels/kernel_table.h"

#if defined(LLM_NEON_DOT_TABLE)
#define LLM_NEON_FILL fill_neondot_kernels
#define LLM_NEON_LEVEL SimdLevel::NeonDot
#else
#define LLM_NEON_FILL fill_neon_kernels
#define LLM_NEON_LEVEL SimdLevel::Neon
#endif
#if defined(LLM_NEON_DOT_TABLE) && !defined(__ARM_FEATURE_DOTPROD)
#define LLM_NEON_READY 0
#else
#define LLM_NEON_READY 1
#endif

#if defined(__aarch64__) && defined(__ARM_NEON) && LLM_NEON_READY
#include <arm_neon.h>

#include <algorithm>
#include <cstring>

#include "kernels/float_convert.h"
#include "kernels/simd_primitives.h"

namespace llm {
namespace {

constexpr int kLanes = 4;
constexpr int kTileRows = 6,
              kTileVectors = 4; // 6 x 4 accumulators + 4 inputs + 1 broadcast of 32 registers
using vf = float32x4_t;

inline vf vzero() {
    return vdupq_n_f32(0.0f);
}
inline vf vset(float a) {
    return vdupq_n_f32(a);
}
inline vf vload(const float *p) {
    return vld1q_f32(p);
}
inline vf vload_n(const float *p, int64_t n) {
    float buf[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    __builtin_memcpy(buf, p, static_cast<size_t>(n) * 4);
    return vld1q_f32(buf);
}
inline void vstore(float *p, vf v) {
    vst1q_f32(p, v);
}
inline void vstore_n(float *p, vf v, int64_t n) {
    float buf[4];
    vst1q_f32(buf, v);
    __builtin_memcpy(p, buf, static_cast<size_t>(n) * 4);
}
LLM_SIMD_BINARY(vadd, vaddq_f32)
LLM_SIMD_BINARY(vsub, vsubq_f32)
LLM_SIMD_BINARY(vmul, vmulq_f32)
LLM_SIMD_BINARY(vdiv, vdivq_f32)
LLM_SIMD_BINARY(vmax, vmaxq_f32)
LLM_SIMD_BINARY(vmin, vminq_f32)
inline vf vabs(vf a) {
    return vabsq_f32(a);
}
inline vf vfma(vf a, vf b, vf c) {
    return vfmaq_f32(c, a, b);
}
inline float vsum(vf v) {
    return vaddvq_f32(v);
}
inline float vmaxall(vf v) {
    return vmaxvq_f32(v);
}
inline void vsum4(vf a, vf b, vf c, vf d, float *out) {
    vst1q_f32(out, vpaddq_f32(vpaddq_f32(a, b), vpaddq_f32(c, d)));
}
inline vf vload_bf16(const uint16_t *p) {
    return vreinterpretq_f32_u32(vshll_n_u16(vld1_u16(p), 16));
}
inline vf vload_bf16_n(const uint16_t *p, int64_t n) {
    uint16_t buf[4] = {0, 0, 0, 0};
    __builtin_memcpy(buf, p, static_cast<size_t>(n) * 2);
    return vload_bf16(buf);
}
inline vf vload_f16(const uint16_t *p) {
    return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(p)));
}
inline vf vload_f16_n(const uint16_t *p, int64_t n) {
    uint16_t buf[4] = {0, 0, 0, 0};
    __builtin_memcpy(buf, p, static_cast<size_t>(n) * 2);
    return vload_f16(buf);
}
// v clamped to +-65504 with the NaN-dropping minnm/maxnm (a NaN becomes
// 65504, as f32_to_f16_clamped), then rounded to fp16 in the default
// round-to-nearest-even mode.
inline void vstore_f16_clamped(uint8_t *p, vf v) {
    const vf c = vmaxnmq_f32(vminnmq_f32(v, vdupq_n_f32(65504.0f)), vdupq_n_f32(-65504.0f));
    vst1_u8(p, vreinterpret_u8_f16(vcvt_f16_f32(c)));
}
inline vf vload_i8(const int8_t *p) {
    int32_t word;
    __builtin_memcpy(&word, p, 4);
    const int16x8_t h = vmovl_s8(vreinterpret_s8_s32(vdup_n_s32(word)));
    return vcvtq_f32_s32(vmovl_s16(vget_low_s16(h)));
}
inline vf vround(vf v) {
    return vrndnq_f32(v);
}
inline vf vpow2i(vf n) {
    const int32x4_t e = vaddq_s32(vcvtq_s32_f32(n), vdupq_n_s32(127));
    return vreinterpretq_f32_s32(vshlq_n_s32(e, 23));
}
inline void vstore_i8(int8_t *p, vf v) {
    const int16x4_t h = vqmovn_s32(vcvtnq_s32_f32(v));
    const int8x8_t b = vqmovn_s16(vcombine_s16(h, h));
    vst1_lane_s32(reinterpret_cast<int32_t *>(p), vreinterpret_s32_s8(b), 0);
}
inline float f16_scalar(uint16_t h) {
    return vgetq_lane_f32(vcvt_f32_f16(vreinterpret_f16_u16(vdup_n_u16(h))), 0);
}

#if defined(__ARM_FEATURE_DOTPROD)
#define LLM_SIMD_Q8_GEMM 1
#define LLM_SIMD_Q8_SIGNED_DOT 1
using vi = int32x4_t;
// 3 rows x 4 vectors (a 16-token panel): 12 int32 + 12 fp32 sums + 4 token
// vectors + 1 broadcast of 32 registers.
constexpr int kQ8TileRows = 3, kQ8TileVectors = 4;
inline vi vi_load(const uint8_t *p) {
    return vld1q_s32(reinterpret_cast<const int32_t *>(p));
}
inline vf vi_to_f(vi a) {
    return vcvtq_f32_s32(a);
}
inline vi q8_block_start(const uint8_t *) {
    return vdupq_n_s32(0);
}
inline vi q8_weights4(int32_t four) {
    return vdupq_n_s32(four);
}
inline vi q8_dot4(vi acc, vi w, vi x) {
    return vdotq_s32(acc, vreinterpretq_s8_s32(w), vreinterpretq_s8_s32(x));
}
#endif

} // namespace

#include "kernels/simd_kernels.inc"

namespace {

// One Q8_0 block's products, w[0..32) by x0, x1 (the activation block's
// two halves), summed into 4 int32 lanes.
#if defined(__ARM_FEATURE_DOTPROD)
inline int32x4_t dot_block(const int8_t *w, int8x16_t x0, int8x16_t x1) {
    return vdotq_s32(vdotq_s32(vdupq_n_s32(0), vld1q_s8(w), x0), vld1q_s8(w + 16), x1);
}
#else
// ARMv8.0: widening multiplies into int16 lanes, each holding two products,
// then pairwise into int32. Activations are in [-127, 127], so two
// products stay within +-2 x 128 x 127 and fit int16 even for a weight of
// -128.
inline int32x4_t dot_block(const int8_t *w, int8x16_t x0, int8x16_t x1) {
    const int8x16_t w0 = vld1q_s8(w), w1 = vld1q_s8(w + 16);
    const int16x8_t p0 = vmlal_high_s8(vmull_s8(vget_low_s8(w0), vget_low_s8(x0)), w0, x0);
    const int16x8_t p1 = vmlal_high_s8(vmull_s8(vget_low_s8(w1), vget_low_s8(x1)), w1, x1);
    return vpadalq_s16(vpaddlq_s16(p0), p1);
}
#endif

// R rows' dot products with quantized activations (xs: their scales, see
// act_scales). Per group of 4 blocks, each row's 4 fp16 scales are widened
// at once and multiplied by the activations' scales; each block's int32
// sums are then added to the row's fp32 lanes times its lane of those. The
// last nb % 4 blocks take the same products one scale at a time. With
// `Prefetch`, each row is prefetched stream_prefetch_ahead(R, true) bytes
// ahead (see for_lanes). The sums are stored by store_sums.
template <int R, bool Prefetch>
inline void q8_rows(const uint8_t *const *rows, const BlockQ8Act *x, const float *xs, int64_t cols,
                    float *const *y) {
    const int64_t nb = cols / kQ8BlockSize;
    const int8_t *q[R];
    vf acc[R];
#pragma GCC unroll 8
    for (int i = 0; i < R; ++i) {
        q[i] = q8_0_quants(rows[i], cols);
        acc[i] = vzero();
    }
    int64_t k = 0;
    for (; k + 4 <= nb; k += 4) {
        if (Prefetch)
#pragma GCC unroll 8
            for (int i = 0; i < R; ++i) {
                const auto *p = reinterpret_cast<const uint8_t *>(q[i] + k * kQ8BlockSize) +
                                stream_prefetch_ahead(R, true);
                prefetch(p);
                prefetch(p + 64);
            }
        const vf x4 = vload(xs + k);
        vf c[R];
#pragma GCC unroll 8
        for (int i = 0; i < R; ++i)
            c[i] = vmul(vload_f16(reinterpret_cast<const uint16_t *>(rows[i]) + k), x4);
        const auto block = [&](auto lane) {
            constexpr int j = decltype(lane)::value;
            const int8x16_t x0 = vld1q_s8(x[k + j].q), x1 = vld1q_s8(x[k + j].q + 16);
#pragma GCC unroll 8
            for (int i = 0; i < R; ++i)
                acc[i] = vfmaq_laneq_f32(
                    acc[i], vcvtq_f32_s32(dot_block(q[i] + (k + j) * kQ8BlockSize, x0, x1)), c[i],
                    j);
        };
        block(std::integral_constant<int, 0>());
        block(std::integral_constant<int, 1>());
        block(std::integral_constant<int, 2>());
        block(std::integral_constant<int, 3>());
    }
    for (; k < nb; ++k) {
        const int8x16_t x0 = vld1q_s8(x[k].q), x1 = vld1q_s8(x[k].q + 16);
#pragma GCC unroll 8
        for (int i = 0; i < R; ++i)
            acc[i] = vfmaq_n_f32(acc[i], vcvtq_f32_s32(dot_block(q[i] + k * kQ8BlockSize, x0, x1)),
                                 q8_0_scale(rows[i], k) * xs[k]);
    }
    store_sums<R>(acc, y);
}

void matvec_q8_0_neon(const uint8_t *const *w, size_t stride, int64_t cols, const BlockQ8Act *x,
                      float *const *y, int64_t n_lanes, int64_t n_steps) {
    const float *xs = act_scales(x, cols / kQ8BlockSize);
    for_lanes(
        w, stride, y, n_lanes, n_steps,
        [&](auto streams, const uint8_t *const *p, float *const *out) {
            q8_rows<decltype(streams)::value, true>(p, x, xs, cols, out);
        },
        [&](const uint8_t *row, float *out) { q8_rows<1, false>(&row, x, xs, cols, &out); });
}

} // namespace

bool LLM_NEON_FILL(KernelTable &t) {
    fill_common_simd_kernels(t);
    t.matvec_q8_0 = matvec_q8_0_neon;
    t.level = LLM_NEON_LEVEL;
    return true;
}

} // namespace llm

#else

namespace llm {
bool LLM_NEON_FILL(KernelTable &) {
    return false;
}
} // namespace llm

#endif
