// Q8_0: weights in blocks of 32 int8 values that share one fp32 scale
// (value = q * scale). The same idea as llama.cpp's Q8_0 and llama2.c's
// runq.c; our block keeps the scale in fp32.
#pragma once

#include <cstdint>

namespace llm {

constexpr int kQ8BlockSize = 32;

struct BlockQ8_0 {
    float scale;
    int8_t q[kQ8BlockSize];
};
static_assert(sizeof(BlockQ8_0) == 36, "BlockQ8_0 must be packed as 4 + 32 bytes");

// Quantize n values (n % 32 == 0): scale = max|x| / 127, q = round(x / scale).
void quantize_row_q8_0(const float *x, BlockQ8_0 *out, int64_t n);

} // namespace llm
