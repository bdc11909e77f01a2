// The portable reference kernels: straightforward loops summed in order.
// Every SIMD level starts from this table and overrides what it speeds up;
// the tests hold all levels to independent references.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/float_convert.h"
#include "kernels/kernel_table.h"

namespace llm {

namespace {

// fn(row, y) for every row of the lanes, lane by lane.
template <class Fn>
void each_lane_row(const uint8_t *const *w, size_t stride, float *const *y, int64_t n_lanes,
                   int64_t n_steps, Fn fn) {
    for (int64_t l = 0; l < n_lanes; ++l)
        for (int64_t k = 0; k < n_steps; ++k)
            fn(w[l] + static_cast<size_t>(k) * stride, y[l] + k);
}

template <float (*Value)(const uint8_t *row, int64_t j)>
void matvec_ref(const uint8_t *const *w, size_t stride, int64_t cols, const float *x,
                float *const *y, int64_t n_lanes, int64_t n_steps) {
    each_lane_row(w, stride, y, n_lanes, n_steps, [&](const uint8_t *row, float *out) {
        float sum = 0.0f;
        for (int64_t j = 0; j < cols; ++j)
            sum += Value(row, j) * x[j];
        *out = sum;
    });
}

template <float (*Value)(const uint8_t *row, int64_t j)>
void widen_ref(const uint8_t *w, size_t stride, int64_t cols, float *out, int64_t n_rows) {
    for (int64_t r = 0; r < n_rows; ++r) {
        const uint8_t *row = w + static_cast<size_t>(r) * stride;
        for (int64_t j = 0; j < cols; ++j)
            out[r * cols + j] = Value(row, j);
    }
}

float value_f32(const uint8_t *row, int64_t j) {
    float v;
    std::memcpy(&v, row + 4 * j, 4);
    return v;
}
float value_bf16(const uint8_t *row, int64_t j) {
    uint16_t h;
    std::memcpy(&h, row + 2 * j, 2);
    return bf16_to_f32(h);
}
float value_f16(const uint8_t *row, int64_t j) {
    uint16_t h;
    std::memcpy(&h, row + 2 * j, 2);
    return f16_to_f32(h);
}
// Q8_0 rows: the scales, then the quants (see quant.h).
float q8_0_scale(const uint8_t *row, int64_t block) {
    return f16_to_f32(q8_0_scale_bits(row, block));
}

void widen_q8_0_ref(const uint8_t *w, size_t stride, int64_t cols, float *out, int64_t n_rows) {
    for (int64_t r = 0; r < n_rows; ++r) {
        const uint8_t *row = w + static_cast<size_t>(r) * stride;
        const int8_t *q = q8_0_quants(row, cols);
        for (int64_t j = 0; j < cols; ++j)
            out[r * cols + j] = q[j] * q8_0_scale(row, j / kQ8BlockSize);
    }
}

void narrow_f16_ref(const float *x, uint8_t *out, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
        const uint16_t h = f32_to_f16_clamped(x[i]);
        std::memcpy(out + 2 * i, &h, 2);
    }
}

// Per block: the exact integer dot product, times both scales.
void matvec_q8_0_ref(const uint8_t *const *w, size_t stride, int64_t cols, const BlockQ8Act *x,
                     float *const *y, int64_t n_lanes, int64_t n_steps) {
    each_lane_row(w, stride, y, n_lanes, n_steps, [&](const uint8_t *row, float *out) {
        const int8_t *q = q8_0_quants(row, cols);
        float sum = 0.0f;
        for (int64_t k = 0; k < cols / kQ8BlockSize; ++k) {
            int32_t dot = 0;
            for (int j = 0; j < kQ8BlockSize; ++j)
                dot += q[k * kQ8BlockSize + j] * x[k].q[j];
            sum += static_cast<float>(dot) * (q8_0_scale(row, k) * x[k].scale);
        }
        *out = sum;
    });
}

void gemm_f32_ref(const float *w, int64_t ldw, int64_t n_rows, const float *xt, int64_t ldxt,
                  int64_t n_tokens, int64_t cols, float *y, int64_t ldy) {
    for (int64_t t = 0; t < n_tokens; ++t)
        for (int64_t r = 0; r < n_rows; ++r) {
            float sum = 0.0f;
            for (int64_t k = 0; k < cols; ++k)
                sum += w[r * ldw + k] * xt[k * ldxt + t];
            y[t * ldy + r] = sum;
        }
}

void quantize_act_q8_ref(const float *x, BlockQ8Act *out, int64_t n) {
    for (int64_t b = 0; b < n / kQ8BlockSize; ++b) {
        const float *v = x + b * kQ8BlockSize;
        float amax = 0.0f;
        for (int j = 0; j < kQ8BlockSize; ++j)
            amax = std::fmax(amax, std::fabs(v[j]));
        const float scale = amax / 127.0f;
        const float inv = scale != 0.0f ? 1.0f / scale : 0.0f;
        out[b].scale = scale;
        for (int j = 0; j < kQ8BlockSize; ++j)
            out[b].q[j] = static_cast<int8_t>(std::nearbyint(v[j] * inv));
    }
}

void rmsnorm_ref(float *out, const float *x, const float *weight, int64_t n, float eps) {
    float ss = 0.0f;
    for (int64_t j = 0; j < n; ++j)
        ss += x[j] * x[j];
    ss /= static_cast<float>(n);
    ss += eps;
    ss = 1.0f / std::sqrt(ss);
    for (int64_t j = 0; j < n; ++j)
        out[j] = weight[j] * (ss * x[j]);
}

void softmax_ref(float *x, int64_t n) {
    float max_val = x[0];
    for (int64_t i = 1; i < n; ++i)
        max_val = std::max(max_val, x[i]);
    float sum = 0.0f;
    for (int64_t i = 0; i < n; ++i) {
        x[i] = std::exp(x[i] - max_val);
        sum += x[i];
    }
    for (int64_t i = 0; i < n; ++i)
        x[i] /= sum;
}

void softmax_block_ref(float *s, int64_t ld, int64_t n_rows, int64_t n_pos, const int64_t *first,
                       const int64_t *visible, float *m, float *l, float *c) {
    for (int64_t r = 0; r < n_rows; ++r) {
        float *x = s + r * ld;
        const int64_t f = first ? first[r] : 0;
        float mx = m[r], sum = 0.0f;
        for (int64_t p = f; p < visible[r]; ++p)
            mx = std::max(mx, x[p]);
        for (int64_t p = 0; p < n_pos; ++p) {
            x[p] = p >= f && p < visible[r] ? std::exp(x[p] - mx) : 0.0f;
            sum += x[p];
        }
        c[r] = std::exp(m[r] - mx);
        l[r] = l[r] * c[r] + sum;
        m[r] = mx;
    }
}

void silu_mul_ref(float *a, const float *b, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
        float v = a[i];
        v *= 1.0f / (1.0f + std::exp(-v));
        a[i] = v * b[i];
    }
}

// GELU with the tanh approximation, as written:
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
void gelu_mul_ref(float *a, const float *b, int64_t n) {
    const float k = 0.7978845608028654f; // sqrt(2/pi)
    for (int64_t i = 0; i < n; ++i) {
        const float x = a[i];
        const float g = 0.5f * x * (1.0f + std::tanh(k * (x + 0.044715f * x * x * x)));
        a[i] = g * b[i];
    }
}

void add_ref(float *a, const float *b, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
        a[i] += b[i];
}

float dot_ref(const float *a, const float *b, int64_t n) {
    float s = 0.0f;
    for (int64_t i = 0; i < n; ++i)
        s += a[i] * b[i];
    return s;
}

float max_ref(const float *x, int64_t n) {
    float m = x[0];
    for (int64_t i = 1; i < n; ++i)
        m = x[i] > m ? x[i] : m;
    return m;
}

// One head after another, as the formula reads. KV values of Bytes bytes
// each, read by Value.
template <float (*Value)(const uint8_t *row, int64_t j), int64_t Bytes>
void attention_ref(const float *q, const void *k, const void *v, int64_t head_stride, int64_t n_pos,
                   int64_t head_dim, int64_t h0, int64_t n_heads, int64_t group, float scale,
                   float *scores, float *out) {
    const auto *kb = static_cast<const uint8_t *>(k), *vb = static_cast<const uint8_t *>(v);
    for (int64_t i = 0; i < n_heads; ++i) {
        const int64_t off = (h0 + i) / group * head_stride;
        const float *qh = q + i * head_dim;
        float *s = scores + i * n_pos, *o = out + i * head_dim;
        for (int64_t p = 0; p < n_pos; ++p) {
            const uint8_t *kp = kb + (off + p * head_dim) * Bytes;
            float sum = 0.0f;
            for (int64_t j = 0; j < head_dim; ++j)
                sum += qh[j] * Value(kp, j);
            s[p] = sum * scale;
        }
        softmax_ref(s, n_pos);
        std::fill_n(o, head_dim, 0.0f);
        for (int64_t p = 0; p < n_pos; ++p) {
            const uint8_t *vp = vb + (off + p * head_dim) * Bytes;
            for (int64_t j = 0; j < head_dim; ++j)
                o[j] += s[p] * Value(vp, j);
        }
    }
}

} // namespace

void fill_scalar_kernels(KernelTable &t) {
    t.level = SimdLevel::Scalar;
    t.matvec_f32 = matvec_ref<value_f32>;
    t.matvec_bf16 = matvec_ref<value_bf16>;
    t.matvec_f16 = matvec_ref<value_f16>;
    t.matvec_q8_0 = matvec_q8_0_ref;
    t.widen_bf16 = widen_ref<value_bf16>;
    t.widen_f16 = widen_ref<value_f16>;
    t.widen_q8_0 = widen_q8_0_ref;
    t.narrow_f16 = narrow_f16_ref;
    t.gemm_f32 = gemm_f32_ref;
    t.quantize_act_q8 = quantize_act_q8_ref;
    t.rmsnorm = rmsnorm_ref;
    t.softmax = softmax_ref;
    t.softmax_block = softmax_block_ref;
    t.silu_mul = silu_mul_ref;
    t.gelu_mul = gelu_mul_ref;
    t.add = add_ref;
    t.dot = dot_ref;
    t.max = max_ref;
    t.attention_f32 = attention_ref<value_f32, 4>;
    t.attention_f16 = attention_ref<value_f16, 2>;
    fill_scalar_legacy_kernels(t);
    fill_scalar_kquant_kernels(t);
}

} // namespace llm
