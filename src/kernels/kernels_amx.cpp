// AMX kernels (Sapphire Rapids and later): batched prefill on bf16 weights
// through the tile unit, on top of the AVX-512 VNNI table. CMakeLists.txt
// gives this file alone the AMX flags; simd_level.cpp enables the level only
// when cpuid reports AMX-BF16 and the OS has granted the tile state.
//
// A tile multiply takes bf16 on both sides, and rounding the activations to
// bf16 would cost ~3 significant digits against the fp32 reference. So each
// activation is split into three bf16 parts by truncation, x = hi + mid + lo
// exactly (8 + 8 + 8 significand bits), and W x = W hi + W mid + W lo. The
// products of bf16 weights with bf16 parts are exact in fp32, and the tile
// unit accumulates them in fp32: the result is an fp32 GEMM up to summation
// order, at three tile multiplies per product, which still run several
// times faster than AVX-512 FMAs on widened weights.
#include "kernels/kernel_table.h"

#if defined(__AMX_TILE__) && defined(__AMX_BF16__) && defined(__AVX512F__) &&                      \
    defined(__AVX512BW__) && defined(__linux__)
#include "kernels/amx_tiles.h"

#include <cstring>

namespace llm {

namespace {

// (No std::min, no std::vector: see kernel_table.h on inline functions.)
int64_t smaller(int64_t a, int64_t b) {
    return a < b ? a : b;
}

// One tile: 16 rows of 64 bytes (32 bf16 or 16 fp32).
constexpr int64_t kTile = 16;
constexpr int64_t kTileK = 32; // bf16 values along k per tile row
constexpr int64_t kBlockElems = kTile * kTileK;
// Rows whose accumulators stay in memory while the k blocks stream past:
// their weights (kRowBlock x kKBlock bf16) and the activations' k block
// (n_tokens x kKBlock x 3 parts) then both stay in L2.
constexpr int64_t kRowBlock = kAmxRowBlock;
constexpr int64_t kKBlock = 1024;

// Tiles: 0-3 accumulators C[a][b] (weight tile a, token tile b), 4-5 weight
// tiles, 6-7 activation tiles. All 16 x 64 bytes.
void configure_tiles() {
    TileConfig cfg;
    for (int i = 0; i < 8; ++i) {
        cfg.colsb[i] = 64;
        cfg.rows[i] = kTile;
    }
    _tile_loadconfig(&cfg);
}

// Part `part` (0 hi, 1 mid, 2 lo) of 32 floats as 32 bf16 in k order: the
// upper halves after removing the parts before it (each subtraction is
// exact: it clears the bits a part took).
inline __m512i split_part(const float *x, int part) {
    const __m512i upper = _mm512_set1_epi32(static_cast<int>(0xffff0000u));
    __m512 a = _mm512_loadu_ps(x), b = _mm512_loadu_ps(x + 16);
    for (int i = 0; i < part; ++i) {
        a = _mm512_sub_ps(a, _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(a), upper)));
        b = _mm512_sub_ps(b, _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(b), upper)));
    }
    // Dword p: x[2p]'s upper half in its low word, x[2p + 1]'s in its high.
    const __m512i odd_words =
        _mm512_set_epi16(63, 61, 59, 57, 55, 53, 51, 49, 47, 45, 43, 41, 39, 37, 35, 33, 31, 29, 27,
                         25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
    return _mm512_permutex2var_epi16(_mm512_castps_si512(a), odd_words, _mm512_castps_si512(b));
}

// Activations x (n_tokens x cols fp32, row-major) split into bf16 parts and
// laid out as the tile unit's B operand: 1 KiB blocks indexed [token tile]
// [k step][part], each 16 rows (k pairs) x 16 tokens x 2 bf16. Tokens past
// n_tokens are zero. cols % 32 == 0.
void pack_act_bf16x3(const float *x, int64_t n_tokens, int64_t cols, uint16_t *out) {
    const int64_t ksteps = cols / kTileK;
    for (int64_t t0 = 0; t0 < n_tokens; t0 += kTile) {
        const int64_t nt = smaller(kTile, n_tokens - t0);
        for (int64_t ks = 0; ks < ksteps; ++ks) {
            for (int part = 0; part < 3; ++part) {
                // Row t: token t0 + t's 16 k pairs; transposed, row p:
                // pair p of the 16 tokens, as the block wants it.
                __m512i r[16];
                for (int64_t t = 0; t < kTile; ++t)
                    r[t] = t < nt ? split_part(x + (t0 + t) * cols + ks * kTileK, part)
                                  : _mm512_setzero_si512();
                transpose16(r);
                __m512i *block = reinterpret_cast<__m512i *>(out + kBlockElems * part);
                for (int p = 0; p < 16; ++p)
                    _mm512_storeu_si512(block + p, r[p]);
            }
            out += 3 * kBlockElems;
        }
    }
}

// The accumulators of `na` weight tiles x `nb` token tiles over k steps
// [k0, k1), loaded from and stored back to acc (row-major, ld floats).
template <int NA, int NB>
void tile_pass(const uint8_t *w, size_t stride, const uint16_t *xb, int64_t tile_stride, int64_t k0,
               int64_t k1, float *acc, int64_t ld, bool first) {
    const size_t ldb = static_cast<size_t>(ld) * 4;
    if (first) {
        _tile_zero(0);
        if (NB > 1) _tile_zero(1);
        if (NA > 1) _tile_zero(2);
        if (NA > 1 && NB > 1) _tile_zero(3);
    } else {
        _tile_loadd(0, acc, ldb);
        if (NB > 1) _tile_loadd(1, acc + kTile, ldb);
        if (NA > 1) _tile_loadd(2, acc + kTile * ld, ldb);
        if (NA > 1 && NB > 1) _tile_loadd(3, acc + kTile * ld + kTile, ldb);
    }
    for (int64_t ks = k0; ks < k1; ++ks) {
        const uint8_t *wk = w + ks * kTileK * 2;
        _tile_loadd(4, wk, stride);
        if (NA > 1) _tile_loadd(5, wk + kTile * stride, stride);
        const uint16_t *b0 = xb + ks * 3 * kBlockElems;
        for (int part = 0; part < 3; ++part) {
            _tile_loadd(6, b0 + part * kBlockElems, 64);
            if (NB > 1) _tile_loadd(7, b0 + tile_stride + part * kBlockElems, 64);
            _tile_dpbf16ps(0, 4, 6);
            if (NB > 1) _tile_dpbf16ps(1, 4, 7);
            if (NA > 1) _tile_dpbf16ps(2, 5, 6);
            if (NA > 1 && NB > 1) _tile_dpbf16ps(3, 5, 7);
        }
    }
    _tile_stored(0, acc, ldb);
    if (NB > 1) _tile_stored(1, acc + kTile, ldb);
    if (NA > 1) _tile_stored(2, acc + kTile * ld, ldb);
    if (NA > 1 && NB > 1) _tile_stored(3, acc + kTile * ld + kTile, ldb);
}

template <int NA>
void tile_row_pass(const uint8_t *w, size_t stride, const uint16_t *xb, int64_t tiles,
                   int64_t ksteps, int64_t k0, int64_t k1, float *acc, int64_t ld, bool first) {
    const int64_t tile_stride = ksteps * 3 * kBlockElems;
    int64_t b = 0;
    for (; b + 2 <= tiles; b += 2)
        tile_pass<NA, 2>(w, stride, xb + b * tile_stride, tile_stride, k0, k1, acc + b * kTile, ld,
                         first);
    if (b < tiles)
        tile_pass<NA, 1>(w, stride, xb + b * tile_stride, tile_stride, k0, k1, acc + b * kTile, ld,
                         first);
}

// y[t * ldy + r] = acc[r * ld + t]: 16 rows of a token at a time, gathered
// from acc and stored as one vector. (Writing y a float at a time, a row
// apart, keeps hitting the same few L1 sets: ldy is often a multiple of
// 1 KiB.)
void store_transposed(const float *acc, int64_t ld, int64_t n_rows, int64_t n_tokens, float *y,
                      int64_t ldy) {
    const __m512i index =
        _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                           _mm512_set1_epi32(static_cast<int>(ld)));
    for (int64_t r = 0; r < n_rows; r += kTile) {
        const __mmask16 rows =
            static_cast<__mmask16>(n_rows - r >= kTile ? 0xffffu : (1u << (n_rows - r)) - 1u);
        for (int64_t t = 0; t < n_tokens; ++t) {
            const __m512 v = _mm512_i32gather_ps(index, acc + r * ld + t, 4);
            _mm512_mask_storeu_ps(y + t * ldy + r, rows, v);
        }
    }
}

// Rows [0, n_out) of y from a block of nr rows (a multiple of 16, at most
// kRowBlock): the k blocks run outermost so that the block's weights and
// the activations of one k block stay in cache across all its tile passes.
void gemm_block(const uint8_t *w, size_t stride, int64_t nr, int64_t n_out, const uint16_t *xb,
                int64_t n_tokens, int64_t ksteps, float *y, int64_t ldy, float *acc) {
    const int64_t tiles = (n_tokens + kTile - 1) / kTile;
    const int64_t ld = amx_padded_tokens(n_tokens); // == tiles * kTile, acc's row length
    for (int64_t k0 = 0; k0 < ksteps; k0 += kKBlock / kTileK) {
        const int64_t k1 = smaller(ksteps, k0 + kKBlock / kTileK);
        int64_t r = 0;
        for (; r + 2 * kTile <= nr; r += 2 * kTile)
            tile_row_pass<2>(w + r * stride, stride, xb, tiles, ksteps, k0, k1, acc + r * ld, ld,
                             k0 == 0);
        if (r < nr)
            tile_row_pass<1>(w + r * stride, stride, xb, tiles, ksteps, k0, k1, acc + r * ld, ld,
                             k0 == 0);
    }
    store_transposed(acc, ld, n_out, n_tokens, y, ldy);
}

// y[t * ldy + r] = W[r] . x[t] for r < n_rows, t < n_tokens; xb from
// pack_act_bf16x3, w bf16 rows `stride` bytes apart, cols % 32 == 0.
// scratch: gemm_bf16x3_scratch_bytes(n_tokens, cols), 64-byte aligned.
void gemm_bf16x3(const uint8_t *w, size_t stride, int64_t n_rows, const uint16_t *xb,
                 int64_t n_tokens, int64_t cols, float *y, int64_t ldy, void *scratch) {
    const int64_t ksteps = cols / kTileK;
    const int64_t full = n_rows / kTile * kTile;
    float *acc = static_cast<float *>(scratch);
    configure_tiles();
    for (int64_t r0 = 0; r0 < full; r0 += kRowBlock) {
        const int64_t nr = smaller(kRowBlock, full - r0);
        gemm_block(w + r0 * stride, stride, nr, nr, xb, n_tokens, ksteps, y + r0, ldy, acc);
    }
    if (full < n_rows) { // the last rows, as a zero-padded tile after acc
        const size_t row_bytes = static_cast<size_t>(cols) * 2;
        uint8_t *pad = reinterpret_cast<uint8_t *>(acc + amx_accumulator_floats(n_tokens));
        std::memset(pad, 0, kTile * row_bytes);
        for (int64_t r = full; r < n_rows; ++r)
            std::memcpy(pad + (r - full) * row_bytes, w + r * stride, row_bytes);
        gemm_block(pad, row_bytes, kTile, n_rows - full, xb, n_tokens, ksteps, y + full, ldy, acc);
    }
    _tile_release();
}

} // namespace

bool fill_amx_kernels(KernelTable &t) {
    if (!fill_avx512vnni_kernels(t)) return false;
    t.level = SimdLevel::Amx;
    t.pack_act_bf16x3 = pack_act_bf16x3;
    t.gemm_bf16x3 = gemm_bf16x3;
    fill_amx_int8_kernels(t);
    return true;
}

} // namespace llm

#else

namespace llm {
bool fill_amx_kernels(KernelTable &) {
    return false;
}
} // namespace llm

#endif
