// GGUF's K-quant weight types Q4_K, Q5_K and Q6_K (quant_blocks.h has the
// block sizes): their quantizer, their decoding, and the scalar reference
// kernels. The layouts are ggml's (ggml-common.h, block_q4_K / q5_K / q6_K;
// decoding as its dequantize_row_q4_K / q5_K / q6_K). A super-block holds
// 256 values.
//
// Q4_K and Q5_K: f16 d, f16 dmin, 12 bytes of eight 6-bit sub-block scales
// and eight 6-bit mins, [Q5_K: u8 qh[32]], u8 qs[128]. Sub-block j holds
// values 32j .. 32j + 31, x = d * scale_j * q - dmin * min_j, q in [0, 15]
// (Q5_K: [0, 31]). The 64 values of chunk c (sub-blocks 2c, 2c + 1) are
// qs[32c + l]: value l of sub-block 2c in the low nibble, of 2c + 1 in the
// high one; Q5_K's fifth bits are bits 2c and 2c + 1 of qh[l]. The scales:
//   j < 4:  scale = s[j] & 63,  min = s[j + 4] & 63
//   j >= 4: scale = (s[j + 4] & 15) | (s[j - 4] >> 6) << 4,
//           min   = (s[j + 4] >> 4) | (s[j] >> 6) << 4
//
// Q6_K: u8 ql[128], u8 qh[64], i8 scales[16], f16 d; x = d * scales[v / 16]
// * (q - 32), q in [0, 63]. Each 128-value half h reads ql[64h ..],
// qh[32h ..]; for l < 32, its values l, l + 32, l + 64, l + 96 take the
// low nibble of ql[l], the low nibble of ql[l + 32], the high nibble of
// ql[l], the high nibble of ql[l + 32], and bits 0-1, 2-3, 4-5, 6-7 of qh[l]
// as their two high bits.
//
// Every decoded value is exact in fp32 before its one subtraction: d (fp16,
// 11 significant bits) x a 6-bit scale x a code of at most 5 bits (Q6_K:
// 7-bit scale x 6-bit code) fits in 24 bits. So x = a * q - b gives the same
// float however it is computed (fused or not, in any order of a's factors):
// the SIMD widening equals dequantize_row_kquant exactly.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/error.h"
#include "kernels/float_convert.h"
#include "kernels/kernel_table.h"

namespace llm {

namespace {

constexpr int kSub = 32;     // Q4_K / Q5_K sub-block: one activation block
constexpr int kGroup6 = 16;  // Q6_K scale group
constexpr int kSubs = 8;     // sub-blocks per super-block
constexpr int kGroups6 = 16; // Q6_K scale groups per super-block

float half_at(const uint8_t *p) {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return f16_to_f32(h);
}
// v (>= 0 or not) as fp16, magnitudes past fp16's range saturated.
uint16_t half_saturated(float v) {
    return f32_to_f16(std::fmax(std::fmin(v, 65504.0f), -65504.0f));
}
void put_half(uint8_t *p, uint16_t h) {
    std::memcpy(p, &h, 2);
}

// The eight 6-bit scales and mins of a Q4_K / Q5_K super-block.
void unpack_scales(const uint8_t *s, uint8_t *sc, uint8_t *m) {
    for (int j = 0; j < 4; ++j) {
        sc[j] = s[j] & 63;
        m[j] = s[j + 4] & 63;
        sc[j + 4] = static_cast<uint8_t>((s[j + 8] & 15) | (s[j] >> 6) << 4);
        m[j + 4] = static_cast<uint8_t>((s[j + 8] >> 4) | (s[j + 4] >> 6) << 4);
    }
}
void pack_scales(const uint8_t *sc, const uint8_t *m, uint8_t *s) {
    for (int j = 0; j < 4; ++j) {
        s[j] = static_cast<uint8_t>(sc[j] | (sc[j + 4] >> 4) << 6);
        s[j + 4] = static_cast<uint8_t>(m[j] | (m[j + 4] >> 4) << 6);
        s[j + 8] = static_cast<uint8_t>((sc[j + 4] & 15) | (m[j + 4] & 15) << 4);
    }
}

// The 256 codes of a Q4_K (Q5_K with qh) super-block, in value order.
void unpack_codes_k(const uint8_t *qs, const uint8_t *qh, uint8_t *q) {
    for (int c = 0; c < 4; ++c)
        for (int l = 0; l < 32; ++l) {
            const uint8_t b = qs[32 * c + l];
            int lo = b & 15, hi = b >> 4;
            if (qh) {
                lo |= (qh[l] >> (2 * c) & 1) << 4;
                hi |= (qh[l] >> (2 * c + 1) & 1) << 4;
            }
            q[64 * c + l] = static_cast<uint8_t>(lo);
            q[64 * c + 32 + l] = static_cast<uint8_t>(hi);
        }
}
// The 256 codes of a Q6_K super-block minus 32, in value order.
void unpack_codes_q6(const uint8_t *blk, int8_t *q) {
    for (int h = 0; h < 2; ++h) {
        const uint8_t *ql = blk + 64 * h, *qh = blk + 128 + 32 * h;
        int8_t *o = q + 128 * h;
        for (int l = 0; l < 32; ++l) {
            o[l] = static_cast<int8_t>(((ql[l] & 15) | (qh[l] & 3) << 4) - 32);
            o[l + 32] = static_cast<int8_t>(((ql[l + 32] & 15) | (qh[l] >> 2 & 3) << 4) - 32);
            o[l + 64] = static_cast<int8_t>(((ql[l] >> 4) | (qh[l] >> 4 & 3) << 4) - 32);
            o[l + 96] = static_cast<int8_t>(((ql[l + 32] >> 4) | (qh[l] >> 6 & 3) << 4) - 32);
        }
    }
}

// ---- quantization ----------------------------------------------------------

// Rounds v to the nearest integer in [lo, hi] (halves up), for NaN-free v
// of any size. (Clamped first, then truncated from lo up: no libm call in
// the quantizer's inner loops.)
int round_clamped(double v, int lo, int hi) {
    if (!(v > lo)) return lo;
    if (v > hi) return hi;
    return lo + static_cast<int>(v - lo + 0.5);
}

// Each value's weight in the least-squares fits: larger values count more
// (their error matters more to a dot product), none counts zero.
void fit_weights(const float *x, int n, double *w) {
    double mean = 0.0;
    for (int i = 0; i < n; ++i)
        mean += std::fabs(static_cast<double>(x[i]));
    mean /= n;
    for (int i = 0; i < n; ++i)
        w[i] = mean + std::fabs(static_cast<double>(x[i]));
}

// x ~= a * q - m for q in [0, nmax], a >= 0, m >= 0 (the K types' mins are
// subtracted, so a sub-block's offset is never above 0). Tries scales
// around nmax / range, each followed by a least-squares refit of a and m to
// the codes it gave, and keeps the best by weighted squared error.
void fit_scale_min(const float *x, int n, int nmax, float *a_out, float *m_out) {
    double lo = 0.0, hi = -HUGE_VAL;
    for (int i = 0; i < n; ++i) {
        lo = std::min(lo, static_cast<double>(x[i]));
        hi = std::max(hi, static_cast<double>(x[i]));
    }
    if (hi <= lo) { // all values equal to lo <= 0 (zeros included)
        *a_out = 0.0f;
        *m_out = static_cast<float>(-lo);
        return;
    }
    double w[kSub], sxx = 0;
    fit_weights(x, n, w);
    for (int i = 0; i < n; ++i)
        sxx += w[i] * x[i] * x[i];
    const double range = hi - lo;
    double best_a = range / nmax, best_b = lo, best_err = HUGE_VAL;
    for (int step = -10; step <= 10; ++step) {
        const double inv = (nmax + 0.1 * step) / range;
        double sw = 0, sq = 0, sqq = 0, sx = 0, sqx = 0;
        for (int i = 0; i < n; ++i) {
            const int q = round_clamped(inv * (x[i] - lo), 0, nmax);
            sw += w[i];
            sq += w[i] * q;
            sqq += w[i] * q * q;
            sx += w[i] * x[i];
            sqx += w[i] * q * x[i];
        }
        const double det = sw * sqq - sq * sq;
        if (!(det > 0)) continue;
        double a = (sw * sqx - sq * sx) / det, b = (sqq * sx - sq * sqx) / det;
        if (b > 0) { // no positive offset: refit the scale alone
            b = 0;
            a = sqx / sqq;
        }
        if (!(a > 0)) continue;
        // sum of w (a q + b - x)^2, expanded
        const double err =
            a * a * sqq + 2 * a * b * sq - 2 * a * sqx + b * b * sw - 2 * b * sx + sxx;
        if (err < best_err) {
            best_err = err;
            best_a = a;
            best_b = b;
        }
    }
    // (finite: |a|, |b| are at most a few times the range, below 1e39)
    *a_out = static_cast<float>(std::min(best_a, 3e38));
    *m_out = static_cast<float>(std::min(-best_b, 3e38));
}

// One Q4_K / Q5_K super-block (nmax 15 / 31): d, dmin, scales, and the
// codes in value order.
void quantize_super_k(const float *x, int nmax, uint8_t *head, uint8_t *q) {
    float a[kSubs], m[kSubs], max_a = 0.0f, max_m = 0.0f;
    for (int j = 0; j < kSubs; ++j) {
        fit_scale_min(x + kSub * j, kSub, nmax, &a[j], &m[j]);
        max_a = std::max(max_a, a[j]);
        max_m = std::max(max_m, m[j]);
    }
    const uint16_t dh = half_saturated(max_a / 63.0f), mh = half_saturated(max_m / 63.0f);
    const float d = f16_to_f32(dh), dmin = f16_to_f32(mh);
    uint8_t sc[kSubs], mn[kSubs];
    for (int j = 0; j < kSubs; ++j) {
        sc[j] = static_cast<uint8_t>(d > 0 ? round_clamped(a[j] / d, 0, 63) : 0);
        mn[j] = static_cast<uint8_t>(dmin > 0 ? round_clamped(m[j] / dmin, 0, 63) : 0);
    }
    put_half(head, dh);
    put_half(head + 2, mh);
    pack_scales(sc, mn, head + 4);
    // The codes against the scales and mins as stored.
    for (int j = 0; j < kSubs; ++j) {
        const double step = static_cast<double>(d * sc[j]), off = static_cast<double>(dmin * mn[j]);
        for (int i = 0; i < kSub; ++i)
            q[kSub * j + i] = static_cast<uint8_t>(
                step > 0 ? round_clamped((x[kSub * j + i] + off) / step, 0, nmax) : 0);
    }
}

void quantize_q4_k(const float *x, uint8_t *blk) {
    uint8_t q[kSuperBlockValues];
    quantize_super_k(x, 15, blk, q);
    uint8_t *qs = blk + 16;
    for (int c = 0; c < 4; ++c)
        for (int l = 0; l < 32; ++l)
            qs[32 * c + l] = static_cast<uint8_t>(q[64 * c + l] | q[64 * c + 32 + l] << 4);
}

void quantize_q5_k(const float *x, uint8_t *blk) {
    uint8_t q[kSuperBlockValues];
    quantize_super_k(x, 31, blk, q);
    uint8_t *qh = blk + 16, *qs = blk + 48;
    std::memset(qh, 0, 32);
    for (int c = 0; c < 4; ++c)
        for (int l = 0; l < 32; ++l) {
            const uint8_t lo = q[64 * c + l], hi = q[64 * c + 32 + l];
            qs[32 * c + l] = static_cast<uint8_t>((lo & 15) | (hi & 15) << 4);
            qh[l] = static_cast<uint8_t>(qh[l] | (lo >> 4) << (2 * c) | (hi >> 4) << (2 * c + 1));
        }
}

// x ~= s * q for q in [-32, 31]: the value of largest magnitude goes to
// about -32 (the wider side), for a few spans each refit by least squares.
float fit_scale_q6(const float *x) {
    double amax = 0, vmax = 0;
    for (int i = 0; i < kGroup6; ++i)
        if (std::fabs(static_cast<double>(x[i])) > amax) {
            amax = std::fabs(static_cast<double>(x[i]));
            vmax = x[i];
        }
    if (amax == 0) return 0.0f;
    double w[kGroup6];
    fit_weights(x, kGroup6, w);
    double best_s = vmax / -32.0, best_err = HUGE_VAL;
    for (int k = 0; k <= 8; ++k) {
        const double inv = -(32.0 - 0.5 * k) / vmax;
        double sqq = 0, sqx = 0;
        for (int i = 0; i < kGroup6; ++i) {
            const int q = round_clamped(inv * x[i], -32, 31);
            sqq += w[i] * q * q;
            sqx += w[i] * q * x[i];
        }
        if (!(sqq > 0)) continue;
        const double s = sqx / sqq;
        const double err = -sqx * s; // sum of w (s q - x)^2 less the constant sum of w x^2
        if (err < best_err) {
            best_err = err;
            best_s = s;
        }
    }
    return static_cast<float>(std::max(std::min(best_s, 3e38), -3e38));
}

void quantize_q6_k(const float *x, uint8_t *blk) {
    float s[kGroups6], max_s = 0.0f;
    for (int g = 0; g < kGroups6; ++g) {
        s[g] = fit_scale_q6(x + kGroup6 * g);
        max_s = std::max(max_s, std::fabs(s[g]));
    }
    const uint16_t dh = half_saturated(max_s / 127.0f);
    const float d = f16_to_f32(dh);
    int8_t sc[kGroups6];
    uint8_t q[kSuperBlockValues]; // codes + 32
    for (int g = 0; g < kGroups6; ++g) {
        sc[g] = static_cast<int8_t>(d > 0 ? round_clamped(s[g] / d, -127, 127) : 0);
        const double step = static_cast<double>(d * sc[g]);
        for (int i = 0; i < kGroup6; ++i)
            q[kGroup6 * g + i] = static_cast<uint8_t>(
                32 + (step != 0 ? round_clamped(x[kGroup6 * g + i] / step, -32, 31) : 0));
    }
    for (int h = 0; h < 2; ++h) {
        uint8_t *ql = blk + 64 * h, *qh = blk + 128 + 32 * h;
        const uint8_t *v = q + 128 * h;
        for (int l = 0; l < 32; ++l) {
            ql[l] = static_cast<uint8_t>((v[l] & 15) | (v[l + 64] & 15) << 4);
            ql[l + 32] = static_cast<uint8_t>((v[l + 32] & 15) | (v[l + 96] & 15) << 4);
            qh[l] = static_cast<uint8_t>(v[l] >> 4 | (v[l + 32] >> 4) << 2 | (v[l + 64] >> 4) << 4 |
                                         (v[l + 96] >> 4) << 6);
        }
    }
    std::memcpy(blk + 192, sc, kGroups6);
    put_half(blk + 208, dh);
}

// ---- decoding ------------------------------------------------------------------

void dequantize_k(const uint8_t *blk, bool q5, float *out) {
    const float d = half_at(blk), dmin = half_at(blk + 2);
    uint8_t sc[kSubs], m[kSubs], q[kSuperBlockValues];
    unpack_scales(blk + 4, sc, m);
    unpack_codes_k(blk + (q5 ? 48 : 16), q5 ? blk + 16 : nullptr, q);
    for (int j = 0; j < kSubs; ++j) {
        const float a = d * sc[j], b = dmin * m[j];
        for (int i = 0; i < kSub; ++i)
            out[kSub * j + i] = a * q[kSub * j + i] - b;
    }
}

void dequantize_q6_k(const uint8_t *blk, float *out) {
    const float d = half_at(blk + 208);
    int8_t q[kSuperBlockValues];
    unpack_codes_q6(blk, q);
    for (int g = 0; g < kGroups6; ++g) {
        const float a = d * static_cast<int8_t>(blk[192 + g]);
        for (int i = 0; i < kGroup6; ++i)
            out[kGroup6 * g + i] = a * q[kGroup6 * g + i];
    }
}

// ---- scalar reference kernels ------------------------------------------------

// fn(row, y) for every row of the lanes (MatvecBlocksFn's layout).
template <class Fn>
void each_row(const uint8_t *const *w, size_t stride, float *const *y, int64_t n_lanes,
              int64_t n_steps, Fn fn) {
    for (int64_t l = 0; l < n_lanes; ++l)
        for (int64_t k = 0; k < n_steps; ++k)
            fn(w[l] + static_cast<size_t>(k) * stride, y[l] + k);
}

// Per sub-block j (activation block b): d * scale_j * x[b].scale * (exact
// integer dot of the codes with x[b].q) - dmin * min_j * xsum[b].
template <bool Q5>
void matvec_k_ref(const uint8_t *const *w, size_t stride, int64_t cols, const BlockQ8Act *x,
                  const float *xsum, float *const *y, int64_t n_lanes, int64_t n_steps) {
    constexpr size_t bytes = Q5 ? kQ5_KBytes : kQ4_KBytes;
    each_row(w, stride, y, n_lanes, n_steps, [&](const uint8_t *row, float *out) {
        float sum = 0.0f;
        for (int64_t s = 0; s < cols / kSuperBlockValues; ++s) {
            const uint8_t *blk = row + static_cast<size_t>(s) * bytes;
            const float d = half_at(blk), dmin = half_at(blk + 2);
            uint8_t sc[kSubs], m[kSubs], q[kSuperBlockValues];
            unpack_scales(blk + 4, sc, m);
            unpack_codes_k(blk + (Q5 ? 48 : 16), Q5 ? blk + 16 : nullptr, q);
            for (int j = 0; j < kSubs; ++j) {
                const int64_t b = s * kSubs + j;
                int32_t dot = 0;
                for (int i = 0; i < kSub; ++i)
                    dot += q[kSub * j + i] * x[b].q[i];
                sum += (d * sc[j]) * x[b].scale * static_cast<float>(dot);
                sum -= (dmin * m[j]) * xsum[b];
            }
        }
        *out = sum;
    });
}

// Per activation block b (two scale groups): d * x[b].scale * (exact integer
// sum over both groups of scale_g * dot of (code - 32) with x[b].q).
void matvec_q6_k_ref(const uint8_t *const *w, size_t stride, int64_t cols, const BlockQ8Act *x,
                     const float *, float *const *y, int64_t n_lanes, int64_t n_steps) {
    each_row(w, stride, y, n_lanes, n_steps, [&](const uint8_t *row, float *out) {
        float sum = 0.0f;
        for (int64_t s = 0; s < cols / kSuperBlockValues; ++s) {
            const uint8_t *blk = row + static_cast<size_t>(s) * kQ6_KBytes;
            const float d = half_at(blk + 208);
            int8_t q[kSuperBlockValues];
            unpack_codes_q6(blk, q);
            for (int j = 0; j < kSubs; ++j) {
                const int64_t b = s * kSubs + j;
                int32_t dot = 0;
                for (int g = 0; g < 2; ++g) {
                    int32_t part = 0;
                    for (int i = 0; i < kGroup6; ++i)
                        part += q[kSub * j + kGroup6 * g + i] * x[b].q[kGroup6 * g + i];
                    dot += static_cast<int8_t>(blk[192 + 2 * j + g]) * part;
                }
                sum += d * x[b].scale * static_cast<float>(dot);
            }
        }
        *out = sum;
    });
}

template <DType T>
void widen_kquant_ref(const uint8_t *w, size_t stride, int64_t cols, float *out, int64_t n_rows) {
    for (int64_t r = 0; r < n_rows; ++r)
        dequantize_row_kquant(T, w + static_cast<size_t>(r) * stride, out + r * cols, cols);
}

void check_row(DType t, int64_t n) {
    if (n % kSuperBlockValues != 0)
        fail(LLM_ERR_INTERNAL, dtype_name(t), " rows hold multiples of 256 values, not ", n);
}

} // namespace

void quantize_row_kquant(DType t, const float *x, uint8_t *row, int64_t n) {
    check_row(t, n);
    const size_t bytes = block_type_bytes(t);
    for (int64_t s = 0; s < n / kSuperBlockValues; ++s) {
        const float *v = x + s * kSuperBlockValues;
        uint8_t *blk = row + static_cast<size_t>(s) * bytes;
        switch (t) {
        case DType::Q4_K: quantize_q4_k(v, blk); break;
        case DType::Q5_K: quantize_q5_k(v, blk); break;
        case DType::Q6_K: quantize_q6_k(v, blk); break;
        default: fail(LLM_ERR_INTERNAL, dtype_name(t), " is not a K-quant type");
        }
    }
}

void dequantize_row_kquant(DType t, const uint8_t *row, float *out, int64_t n) {
    check_row(t, n);
    const size_t bytes = block_type_bytes(t);
    for (int64_t s = 0; s < n / kSuperBlockValues; ++s) {
        const uint8_t *blk = row + static_cast<size_t>(s) * bytes;
        float *o = out + s * kSuperBlockValues;
        switch (t) {
        case DType::Q4_K: dequantize_k(blk, false, o); break;
        case DType::Q5_K: dequantize_k(blk, true, o); break;
        case DType::Q6_K: dequantize_q6_k(blk, o); break;
        default: fail(LLM_ERR_INTERNAL, dtype_name(t), " is not a K-quant type");
        }
    }
}

void int8_form_row_kquant(DType t, const uint8_t *row, uint8_t *out, int64_t n) {
    const bool q5 = t == DType::Q5_K;
    if (t != DType::Q4_K && !q5) fail(LLM_ERR_INTERNAL, dtype_name(t), " has no int8 form");
    const size_t bytes = q5 ? kQ5_KBytes : kQ4_KBytes;
    const int64_t nb = n / kSub;
    float *scales = reinterpret_cast<float *>(out), *offsets = scales + nb;
    uint8_t *q = out + 8 * nb; // codes 0..31: the same bytes as int8
    for (int64_t s = 0; s < n / kSuperBlockValues; ++s) {
        const uint8_t *blk = row + static_cast<size_t>(s) * bytes;
        const float d = half_at(blk), dmin = half_at(blk + 2);
        uint8_t sc[kSubs], m[kSubs];
        unpack_scales(blk + 4, sc, m);
        unpack_codes_k(blk + (q5 ? 48 : 16), q5 ? blk + 16 : nullptr, q + s * kSuperBlockValues);
        for (int j = 0; j < kSubs; ++j) {
            scales[s * kSubs + j] = d * static_cast<float>(sc[j]);
            offsets[s * kSubs + j] = -(dmin * static_cast<float>(m[j]));
        }
    }
}

void fill_scalar_kquant_kernels(KernelTable &t) {
    t.matvec_q4_k = matvec_k_ref<false>;
    t.matvec_q5_k = matvec_k_ref<true>;
    t.matvec_q6_k = matvec_q6_k_ref;
    t.widen_q4_k = widen_kquant_ref<DType::Q4_K>;
    t.widen_q5_k = widen_kquant_ref<DType::Q5_K>;
    t.widen_q6_k = widen_kquant_ref<DType::Q6_K>;
}

} // namespace llm
