// Reference (portable C++) kernels. Straightforward loops, summed in order,
// so they double as the yardstick the faster variants are tested against.
#include "kernels/kernels.h"

#include <algorithm>
#include <cmath>

#include "common/error.h"
#include "kernels/float_convert.h"
#include "kernels/quant.h"
#include "kernels/thread_pool.h"

namespace llm {

const char *dtype_name(DType t) {
    switch (t) {
    case DType::F32: return "f32";
    case DType::BF16: return "bf16";
    case DType::F16: return "f16";
    case DType::Q8_0: return "q8_0";
    }
    return "?";
}

size_t dtype_row_bytes(DType t, int64_t n) {
    switch (t) {
    case DType::F32: return static_cast<size_t>(n) * 4;
    case DType::BF16:
    case DType::F16: return static_cast<size_t>(n) * 2;
    case DType::Q8_0: return static_cast<size_t>(n / kQ8BlockSize) * sizeof(BlockQ8_0);
    }
    return 0;
}

size_t Matrix::row_bytes() const {
    return dtype_row_bytes(type, cols);
}

uint16_t f32_to_f16(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    uint32_t sign = (bits >> 16) & 0x8000u;
    uint32_t absbits = bits & 0x7fffffffu;
    if (absbits > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);  // NaN
    if (absbits >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u); // overflow → inf
    if (absbits < 0x38800000u) { // subnormal or zero in f16
        float a;
        std::memcpy(&a, &absbits, 4);
        // 2^-24 is the smallest f16 subnormal; nearbyint rounds to even.
        uint32_t m = static_cast<uint32_t>(std::nearbyint(a * 16777216.0f));
        return static_cast<uint16_t>(sign | m);
    }
    uint32_t rounded = absbits + 0xfffu + ((absbits >> 13) & 1u);
    return static_cast<uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
}

namespace {

float dot_row_ref(const Matrix &w, int64_t row, const float *x) {
    const uint8_t *p = w.row(row);
    const int64_t n = w.cols;
    float sum = 0.0f;
    switch (w.type) {
    case DType::F32: {
        const float *r = reinterpret_cast<const float *>(p);
        for (int64_t j = 0; j < n; ++j)
            sum += r[j] * x[j];
        break;
    }
    case DType::BF16: {
        const uint16_t *r = reinterpret_cast<const uint16_t *>(p);
        for (int64_t j = 0; j < n; ++j)
            sum += bf16_to_f32(r[j]) * x[j];
        break;
    }
    case DType::F16: {
        const uint16_t *r = reinterpret_cast<const uint16_t *>(p);
        for (int64_t j = 0; j < n; ++j)
            sum += f16_to_f32(r[j]) * x[j];
        break;
    }
    case DType::Q8_0: {
        const BlockQ8_0 *b = reinterpret_cast<const BlockQ8_0 *>(p);
        for (int64_t k = 0; k < n / kQ8BlockSize; ++k) {
            float s = 0.0f;
            for (int j = 0; j < kQ8BlockSize; ++j)
                s += b[k].q[j] * x[k * kQ8BlockSize + j];
            sum += s * b[k].scale;
        }
        break;
    }
    }
    return sum;
}

} // namespace

void matmul(const Matrix &w, const float *x, int64_t n_tokens, float *y, ThreadPool *pool) {
    auto rows = [&](int64_t begin, int64_t end, int) {
        for (int64_t t = 0; t < n_tokens; ++t)
            for (int64_t i = begin; i < end; ++i)
                y[t * w.rows + i] = dot_row_ref(w, i, x + t * w.cols);
    };
    if (pool)
        pool->parallel_for(w.rows, 16, rows);
    else
        rows(0, w.rows, 0);
}

void matrix_row_f32(const Matrix &m, int64_t index, float *out) {
    const uint8_t *p = m.row(index);
    switch (m.type) {
    case DType::F32: std::memcpy(out, p, static_cast<size_t>(m.cols) * 4); break;
    case DType::BF16: {
        const uint16_t *r = reinterpret_cast<const uint16_t *>(p);
        for (int64_t j = 0; j < m.cols; ++j)
            out[j] = bf16_to_f32(r[j]);
        break;
    }
    case DType::F16: {
        const uint16_t *r = reinterpret_cast<const uint16_t *>(p);
        for (int64_t j = 0; j < m.cols; ++j)
            out[j] = f16_to_f32(r[j]);
        break;
    }
    case DType::Q8_0: {
        const BlockQ8_0 *b = reinterpret_cast<const BlockQ8_0 *>(p);
        for (int64_t j = 0; j < m.cols; ++j)
            out[j] = b[j / kQ8BlockSize].q[j % kQ8BlockSize] * b[j / kQ8BlockSize].scale;
        break;
    }
    }
}

void rmsnorm(float *out, const float *x, const float *weight, int64_t n, float eps) {
    float ss = 0.0f;
    for (int64_t j = 0; j < n; ++j)
        ss += x[j] * x[j];
    ss /= static_cast<float>(n);
    ss += eps;
    ss = 1.0f / std::sqrt(ss);
    for (int64_t j = 0; j < n; ++j)
        out[j] = weight[j] * (ss * x[j]);
}

void softmax(float *x, int64_t n) {
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

void silu_mul(float *a, const float *b, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
        float v = a[i];
        v *= 1.0f / (1.0f + std::exp(-v));
        a[i] = v * b[i];
    }
}

void add_inplace(float *a, const float *b, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
        a[i] += b[i];
}

float dot_f32(const float *a, const float *b, int64_t n) {
    float s = 0.0f;
    for (int64_t i = 0; i < n; ++i)
        s += a[i] * b[i];
    return s;
}

void rope_angles(float *cos_sin, int64_t head_dim, int32_t pos, float theta) {
    for (int64_t i = 0; i < head_dim / 2; ++i) {
        float freq =
            1.0f / std::pow(theta, static_cast<float>(2 * i) / static_cast<float>(head_dim));
        float val = static_cast<float>(pos) * freq;
        cos_sin[2 * i] = std::cos(val);
        cos_sin[2 * i + 1] = std::sin(val);
    }
}

void rope(float *x, int64_t n_heads, int64_t head_dim, const float *cos_sin, bool interleaved) {
    const int64_t half = head_dim / 2;
    for (int64_t h = 0; h < n_heads; ++h) {
        float *v = x + h * head_dim;
        for (int64_t i = 0; i < half; ++i) {
            float c = cos_sin[2 * i], s = cos_sin[2 * i + 1];
            float *a = interleaved ? &v[2 * i] : &v[i];
            float *b = interleaved ? &v[2 * i + 1] : &v[i + half];
            float a0 = *a, b0 = *b;
            *a = a0 * c - b0 * s;
            *b = a0 * s + b0 * c;
        }
    }
}

} // namespace llm
