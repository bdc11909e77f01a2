// What the AMX kernel files share: the tile configuration operand and a
// 16 x 16 register transpose. Included only by files compiled with the AMX
// and AVX-512 flags (kernels_amx.cpp, kernels_amx_q8.cpp); everything here
// has internal linkage (see kernel_table.h for why).
#pragma once

#include "kernels/avx512_intrinsics.h"

#include <cstdint>

namespace llm {
namespace {

// The LDTILECFG operand (palette 1): per tile, its bytes per row and rows.
struct alignas(64) TileConfig {
    uint8_t palette = 1;
    uint8_t start_row = 0;
    uint8_t reserved[14] = {};
    uint16_t colsb[16] = {};
    uint8_t rows[16] = {};
};

// In-place transpose of a 16 x 16 matrix of 32-bit values, one row per
// register: 32-bit, then 64-bit interleaves within 128-bit lanes, then two
// rounds of lane shuffles.
inline void transpose16(__m512i r[16]) {
    __m512i t[16], u[16];
    for (int i = 0; i < 8; ++i) {
        t[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
    }
    // u[4i + j], lane l: column 4l + j of rows 4i .. 4i + 3.
    for (int i = 0; i < 4; ++i) {
        u[4 * i] = _mm512_unpacklo_epi64(t[4 * i], t[4 * i + 2]);
        u[4 * i + 1] = _mm512_unpackhi_epi64(t[4 * i], t[4 * i + 2]);
        u[4 * i + 2] = _mm512_unpacklo_epi64(t[4 * i + 1], t[4 * i + 3]);
        u[4 * i + 3] = _mm512_unpackhi_epi64(t[4 * i + 1], t[4 * i + 3]);
    }
    for (int j = 0; j < 4; ++j) {
        const __m512i s0 = _mm512_shuffle_i32x4(u[j], u[4 + j], 0x88);
        const __m512i s1 = _mm512_shuffle_i32x4(u[j], u[4 + j], 0xdd);
        const __m512i s2 = _mm512_shuffle_i32x4(u[8 + j], u[12 + j], 0x88);
        const __m512i s3 = _mm512_shuffle_i32x4(u[8 + j], u[12 + j], 0xdd);
        r[j] = _mm512_shuffle_i32x4(s0, s2, 0x88);
        r[8 + j] = _mm512_shuffle_i32x4(s0, s2, 0xdd);
        r[4 + j] = _mm512_shuffle_i32x4(s1, s3, 0x88);
        r[12 + j] = _mm512_shuffle_i32x4(s1, s3, 0xdd);
    }
}

} // namespace
} // namespace llm
