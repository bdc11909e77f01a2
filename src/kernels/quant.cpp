#include "kernels/quant.h"

#include <cmath>

namespace llm {

void quantize_row_q8_0(const float *x, BlockQ8_0 *out, int64_t n) {
    for (int64_t b = 0; b < n / kQ8BlockSize; ++b) {
        const float *v = x + b * kQ8BlockSize;
        float amax = 0.0f;
        for (int j = 0; j < kQ8BlockSize; ++j)
            amax = std::fmax(amax, std::fabs(v[j]));
        float scale = amax / 127.0f;
        float inv = scale != 0.0f ? 1.0f / scale : 0.0f;
        out[b].scale = scale;
        for (int j = 0; j < kQ8BlockSize; ++j)
            out[b].q[j] = static_cast<int8_t>(std::lround(v[j] * inv));
    }
}

} // namespace llm
