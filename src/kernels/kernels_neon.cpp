// AArch64 Advanced SIMD kernels: the primitives of simd_kernels.inc on
// 4-lane registers. Q8_0 uses the shared float-lane dot product (exact for
// int8 products), which keeps this file small.
#include "kernels/kernel_table.h"

#if defined(__aarch64__) && defined(__ARM_NEON)
#include <arm_neon.h>

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

} // namespace

#include "kernels/simd_kernels.inc"

bool fill_neon_kernels(KernelTable &t) {
    fill_common_simd_kernels(t);
    t.level = SimdLevel::Neon;
    return true;
}

} // namespace llm

#else

namespace llm {
bool fill_neon_kernels(KernelTable &) {
    return false;
}
} // namespace llm

#endif
