// Q8_0: values in blocks of 32 int8 that share one scale (value = q * scale).
// Weights use the same 34-byte block as GGUF's Q8_0 (fp16 scale), so a
// GGUF-quantized tensor could be used as is. Activations are quantized per
// token at run time into blocks with an fp32 scale (BlockQ8Act): they live
// only in scratch memory, where the 2 extra bytes cost nothing.
#pragma once

#include <cstdint>

namespace llm {

constexpr int kQ8BlockSize = 32;

struct BlockQ8_0 {
    uint16_t scale; // IEEE fp16
    int8_t q[kQ8BlockSize];
};
static_assert(sizeof(BlockQ8_0) == 34, "BlockQ8_0 must be packed as 2 + 32 bytes");

struct BlockQ8Act {
    float scale;
    int8_t q[kQ8BlockSize];
};
static_assert(sizeof(BlockQ8Act) == 36, "BlockQ8Act must be packed as 4 + 32 bytes");

// Quantizes n weights (n % 32 == 0): scale = max|x| / 127 rounded to fp16,
// q = round-half-even(x / scale). Runs once at load time.
void quantize_row_q8_0(const float *x, BlockQ8_0 *out, int64_t n);

} // namespace llm
