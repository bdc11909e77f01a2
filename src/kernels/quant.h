// Q8_0: values in blocks of 32 int8 that share one fp16 scale (value =
// q * scale), 34 bytes per 32 values as in GGUF's Q8_0. The blocks of a row
// are stored split, not interleaved as in GGUF: first the row's n / 32
// scales, then all n quants. The matrix-vector kernels then read two
// blocks' quants with one 64-byte load and sixteen scales with one 32-byte
// load, instead of assembling each block's scale from scalar loads (a GGUF
// Q8_0 tensor would be repacked at load). Activations are quantized per
// token at run time into blocks with an fp32 scale (BlockQ8Act): they live
// only in scratch memory, where the 2 extra bytes cost nothing.
//
// (static: these headers are included by the per-ISA kernel files, which
// must share no inline function of external linkage; see kernel_table.h.)
#pragma once

#include <cstdint>
#include <cstring>

namespace llm {

constexpr int kQ8BlockSize = 32;

// Where the parts of a Q8_0 row of n values (n % 32 == 0) start.
static constexpr int64_t q8_0_quants_offset(int64_t n) {
    return n / kQ8BlockSize * 2;
}
static constexpr int64_t q8_0_row_bytes(int64_t n) {
    return q8_0_quants_offset(n) + n;
}
// The n quants of a Q8_0 row of n values, and the fp16 bits of a block's
// scale (each kernel file widens them with its own instructions).
static inline const int8_t *q8_0_quants(const uint8_t *row, int64_t n) {
    return reinterpret_cast<const int8_t *>(row + q8_0_quants_offset(n));
}
static inline uint16_t q8_0_scale_bits(const uint8_t *row, int64_t block) {
    uint16_t h;
    std::memcpy(&h, row + 2 * block, 2); // as quantize_row_q8_0 stored it
    return h;
}

struct BlockQ8Act {
    float scale;
    int8_t q[kQ8BlockSize];
};
static_assert(sizeof(BlockQ8Act) == 36, "BlockQ8Act must be packed as 4 + 32 bytes");

// Quantizes n weights (n % 32 == 0) into a Q8_0 row of q8_0_row_bytes(n)
// bytes: scale = max|x| / 127 rounded to fp16, q = round-half-even(x /
// scale). Runs once at load time.
void quantize_row_q8_0(const float *x, uint8_t *row, int64_t n);

} // namespace llm
