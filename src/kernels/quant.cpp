#include "kernels/quant.h"

#include <cstring>

#include "kernels/float_convert.h"

namespace llm {

namespace {
// Round half to even for |v| < 2^22, without a libm call: adding 1.5 * 2^23
// leaves no fraction bits, so the FPU's default rounding does the work.
inline float round_even(float v) {
    volatile float big = 12582912.0f; // volatile: not to be folded away
    const float b = big;
    return (v + b) - b;
}
} // namespace

void quantize_row_q8_0(const float *x, uint8_t *row, int64_t n) {
    int8_t *quants = reinterpret_cast<int8_t *>(row + q8_0_quants_offset(n));
    for (int64_t b = 0; b < n / kQ8BlockSize; ++b) {
        const float *v = x + b * kQ8BlockSize;
        float amax = 0.0f;
        for (int j = 0; j < kQ8BlockSize; ++j) {
            const float a = v[j] < 0 ? -v[j] : v[j];
            amax = a > amax ? a : amax;
        }
        // Quantize against the scale as stored (fp16), so that q * scale is
        // what the kernels compute. Weights beyond fp16's range saturate.
        const float s = amax / 127.0f;
        const uint16_t h = f32_to_f16(s < 65504.0f ? s : 65504.0f);
        const float scale = f16_to_f32(h);
        const float inv = scale != 0.0f ? 1.0f / scale : 0.0f;
        std::memcpy(row + 2 * b, &h, 2);
        for (int j = 0; j < kQ8BlockSize; ++j) {
            float q = round_even(v[j] * inv);
            q = q > 127.0f ? 127.0f : (q < -127.0f ? -127.0f : q);
            quants[b * kQ8BlockSize + j] = static_cast<int8_t>(q);
        }
    }
}

} // namespace llm
