// GGUF's 32-value block types Q4_0, Q4_1, Q5_0 and Q5_1 (layouts in
// quant_blocks.h): quantization to and from fp32, and the scalar reference
// kernels. The SIMD kernels are in quant_legacy_simd.inc.
//
// Each value has an unsigned 4- or 5-bit code q. The _0 types are symmetric
// around a fixed zero code (x = d * (q - z), z = 8 or 16), the _1 types
// carry a minimum (x = d * q + m). A decode product per 32-value block of
// activations (scale xs, quants a) is then
//   _0:  (d * xs) * sum (q - z) a             (an exact integer sum)
//   _1:  (d * xs) * sum q a + m * (xs * sum a)
// where xs * sum a is the caller's xsum: both integer sums are exact, and
// the SIMD kernels compute the same ones.
#include <cmath>
#include <cstring>

#include "common/error.h"
#include "kernels/float_convert.h"
#include "kernels/kernel_table.h"

namespace llm {

namespace {

constexpr int kBlock = kQ8BlockSize; // 32 values per block in all four types
constexpr double kF16Max = 65504.0;

// Where the parts of a block are, and how its codes map to values.
struct LegacyLayout {
    size_t bytes;
    int bits;     // 4 or 5
    bool has_min; // the _1 types
    int zero;     // the _0 types' zero code (0 for the _1 types)
    int high_at;  // the Q5 types' 32 fifth bits (u32)
    int qs_at;    // the 16 bytes of low nibbles
};

LegacyLayout legacy_layout(DType t) {
    switch (t) {
    case DType::Q4_0: return {kQ4_0Bytes, 4, false, 8, 0, 2};
    case DType::Q4_1: return {kQ4_1Bytes, 4, true, 0, 0, 4};
    case DType::Q5_0: return {kQ5_0Bytes, 5, false, 16, 2, 6};
    case DType::Q5_1: return {kQ5_1Bytes, 5, true, 0, 4, 8};
    default: fail(LLM_ERR_INTERNAL, dtype_name(t), " is not a 32-value block type");
    }
}

uint16_t load_u16(const uint8_t *p) {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
}
uint32_t load_u32(const uint8_t *p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

// The 32 codes of a block, in value order.
void block_codes(const LegacyLayout &l, const uint8_t *blk, int *q) {
    const uint8_t *qs = blk + l.qs_at;
    for (int j = 0; j < 16; ++j) {
        q[j] = qs[j] & 15;
        q[j + 16] = qs[j] >> 4;
    }
    if (l.bits == 5) {
        const uint32_t h = load_u32(blk + l.high_at);
        for (int j = 0; j < kBlock; ++j)
            q[j] |= static_cast<int>((h >> j) & 1u) << 4;
    }
}

float block_scale(const uint8_t *blk) {
    return f16_to_f32(load_u16(blk));
}
float block_min(const LegacyLayout &l, const uint8_t *blk) {
    return l.has_min ? f16_to_f32(load_u16(blk + 2)) : 0.0f;
}

// fp16 of v, clamped to fp16's finite range (v finite).
uint16_t to_f16(double v) {
    v = v > kF16Max ? kF16Max : (v < -kF16Max ? -kF16Max : v);
    return f32_to_f16(static_cast<float>(v));
}

// One block of 32 values. Scale (and minimum) are computed in double, so
// that no intermediate overflows for finite input, clamped to fp16's range
// and stored; the codes are then rounded to nearest against the values as
// stored, so that they are the best codes for the block's actual scale.
void quantize_block(const LegacyLayout &l, const float *x, uint8_t *blk) {
    const int top = (1 << l.bits) - 1; // the largest code
    int q[kBlock];
    uint16_t dh, mh = 0;
    double d, m;
    if (l.has_min) {
        // (Comparisons, not fmin/fmax: GCC 12 for aarch64 crashes
        // vectorizing those reductions at -O3.)
        double lo = x[0], hi = x[0];
        for (int j = 1; j < kBlock; ++j) {
            const double v = x[j];
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        mh = to_f16(lo);
        m = f16_to_f32(mh);
        dh = to_f16((hi - m) / top);
        d = f16_to_f32(dh);
    } else {
        // The value of largest magnitude, sign included, takes code 0 (-z d):
        // the codes then use their whole range, z below zero and z - 1 above.
        double extreme = 0.0;
        for (int j = 0; j < kBlock; ++j)
            if (std::fabs(x[j]) > std::fabs(extreme)) extreme = x[j];
        dh = to_f16(extreme / -l.zero);
        d = f16_to_f32(dh);
        m = -l.zero * d;
    }
    const double inv = d != 0.0 ? 1.0 / d : 0.0;
    for (int j = 0; j < kBlock; ++j) {
        const double c = std::nearbyint((x[j] - m) * inv);
        q[j] = c < 0.0 ? 0 : (c > top ? top : static_cast<int>(c));
    }
    std::memcpy(blk, &dh, 2);
    if (l.has_min) std::memcpy(blk + 2, &mh, 2);
    uint8_t *qs = blk + l.qs_at;
    for (int j = 0; j < 16; ++j)
        qs[j] = static_cast<uint8_t>((q[j] & 15) | (q[j + 16] & 15) << 4);
    if (l.bits == 5) {
        uint32_t h = 0;
        for (int j = 0; j < kBlock; ++j)
            h |= static_cast<uint32_t>(q[j] >> 4) << j;
        std::memcpy(blk + l.high_at, &h, 4);
    }
}

void dequantize_block(const LegacyLayout &l, const uint8_t *blk, float *out) {
    int q[kBlock];
    block_codes(l, blk, q);
    const float d = block_scale(blk), m = block_min(l, blk);
    for (int j = 0; j < kBlock; ++j)
        out[j] = l.has_min ? d * static_cast<float>(q[j]) + m
                           : d * static_cast<float>(q[j] - l.zero); // exact
}

// The reference decode product (see the top of the file), row by row.
template <DType T>
void matvec_legacy_ref(const uint8_t *const *w, size_t stride, int64_t cols, const BlockQ8Act *x,
                       const float *xsum, float *const *y, int64_t n_lanes, int64_t n_steps) {
    const LegacyLayout l = legacy_layout(T);
    for (int64_t lane = 0; lane < n_lanes; ++lane)
        for (int64_t k = 0; k < n_steps; ++k) {
            const uint8_t *row = w[lane] + static_cast<size_t>(k) * stride;
            float sum = 0.0f;
            for (int64_t b = 0; b < cols / kBlock; ++b) {
                const uint8_t *blk = row + static_cast<size_t>(b) * l.bytes;
                int q[kBlock];
                block_codes(l, blk, q);
                int32_t dot = 0;
                for (int j = 0; j < kBlock; ++j)
                    dot += (q[j] - l.zero) * x[b].q[j];
                sum += static_cast<float>(dot) * (block_scale(blk) * x[b].scale);
                if (l.has_min) sum += block_min(l, blk) * xsum[b];
            }
            y[lane][k] = sum;
        }
}

template <DType T>
void widen_legacy_ref(const uint8_t *w, size_t stride, int64_t cols, float *out, int64_t n_rows) {
    for (int64_t r = 0; r < n_rows; ++r)
        dequantize_row_legacy(T, w + static_cast<size_t>(r) * stride, out + r * cols, cols);
}

} // namespace

void quantize_row_legacy(DType t, const float *x, uint8_t *row, int64_t n) {
    const LegacyLayout l = legacy_layout(t);
    for (int64_t b = 0; b < n / kBlock; ++b)
        quantize_block(l, x + b * kBlock, row + static_cast<size_t>(b) * l.bytes);
}

void dequantize_row_legacy(DType t, const uint8_t *row, float *out, int64_t n) {
    const LegacyLayout l = legacy_layout(t);
    for (int64_t b = 0; b < n / kBlock; ++b)
        dequantize_block(l, row + static_cast<size_t>(b) * l.bytes, out + b * kBlock);
}

namespace {

// A block's 32 codes minus `zero` as int8, straight from its bytes (prefill
// runs this for every panel of every chunk: plain byte loops the compiler
// vectorizes, not block_codes' int array).
void int8_codes(const LegacyLayout &l, const uint8_t *blk, int8_t *q) {
    const uint8_t *qs = blk + l.qs_at;
    const int zero = l.zero;
    if (l.bits == 4) {
        for (int j = 0; j < 16; ++j) {
            q[j] = static_cast<int8_t>((qs[j] & 15) - zero);
            q[j + 16] = static_cast<int8_t>((qs[j] >> 4) - zero);
        }
        return;
    }
    const uint32_t h = load_u32(blk + l.high_at);
    for (int j = 0; j < 16; ++j) {
        q[j] = static_cast<int8_t>(((qs[j] & 15) | ((h >> j) & 1u) << 4) - zero);
        q[j + 16] = static_cast<int8_t>(((qs[j] >> 4) | ((h >> (j + 16)) & 1u) << 4) - zero);
    }
}

} // namespace

void int8_form_row_legacy(DType t, const uint8_t *row, uint8_t *out, int64_t n) {
    const LegacyLayout l = legacy_layout(t);
    const int64_t nb = n / kBlock;
    float *scales = reinterpret_cast<float *>(out), *offsets = scales + nb;
    int8_t *q = reinterpret_cast<int8_t *>(out + 8 * nb);
    for (int64_t b = 0; b < nb; ++b) {
        const uint8_t *blk = row + static_cast<size_t>(b) * l.bytes;
        int8_codes(l, blk, q + b * kBlock);
        scales[b] = block_scale(blk);
        offsets[b] = block_min(l, blk);
    }
}

void fill_scalar_legacy_kernels(KernelTable &t) {
    t.matvec_q4_0 = matvec_legacy_ref<DType::Q4_0>;
    t.matvec_q4_1 = matvec_legacy_ref<DType::Q4_1>;
    t.matvec_q5_0 = matvec_legacy_ref<DType::Q5_0>;
    t.matvec_q5_1 = matvec_legacy_ref<DType::Q5_1>;
    t.widen_q4_0 = widen_legacy_ref<DType::Q4_0>;
    t.widen_q4_1 = widen_legacy_ref<DType::Q4_1>;
    t.widen_q5_0 = widen_legacy_ref<DType::Q5_0>;
    t.widen_q5_1 = widen_legacy_ref<DType::Q5_1>;
}

} // namespace llm
