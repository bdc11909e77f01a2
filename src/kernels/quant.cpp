#include "kernels/quant.h"

#include <cmath>

#include "kernels/float_convert.h"

namespace llm {

void quantize_row_q8_0(const float *x, BlockQ8_0 *out, int64_t n) {
    for (int64_t b = 0; b < n / kQ8BlockSize; ++b) {
        const float *v = x + b * kQ8BlockSize;
        float amax = 0.0f;
        for (int j = 0; j < kQ8BlockSize; ++j)
            amax = std::fmax(amax, std::fabs(v[j]));
        // Quantize against the scale as stored, so that q * scale is what
        // the kernels compute.
        // (fmin: weights beyond fp16's range saturate instead of turning inf.)
        const uint16_t h = f32_to_f16(std::fmin(amax / 127.0f, 65504.0f));
        const float scale = f16_to_f32(h);
        const float inv = scale != 0.0f ? 1.0f / scale : 0.0f;
        out[b].scale = h;
        for (int j = 0; j < kQ8BlockSize; ++j) {
            float q = std::nearbyint(v[j] * inv);
            out[b].q[j] = static_cast<int8_t>(std::fmax(-127.0f, std::fmin(127.0f, q)));
        }
    }
}

} // namespace llm
