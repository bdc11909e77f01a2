// AMX-INT8 GEMM for batches of Q8_0 and Q4_0 weights (gemm_q8_0,
// gemm_q4_0 of the AMX table). CMakeLists.txt gives this file the AMX
// flags; fill_amx_kernels adds these entries where cpuid reports AMX-INT8.
//
// Per 32-value block, one tile multiply (TDPBSSD, signed x signed bytes)
// gives the exact int32 dot products of 16 weight rows (A: 16 rows x 32
// quants, loaded straight from the rows) with 16 tokens (B: the activation
// panel's quants, whose 8 groups of 16 tokens x 4 values are the tile
// unit's B layout as they are). Then, per row, as the AVX-512 VNNI kernel
// does per (row, token): acc = fma(float(dot), w_scale x x_scale, acc), one
// block after the other, so the results are bit-identical to its.
//
// The float stage (convert, multiply, FMA per row and block) is the real
// cost; the tile multiplies run ahead of it on four accumulator tiles, so
// that the tile unit works on the next blocks while the vector unit takes
// the previous ones out of memory.
#include "kernels/kernel_table.h"

#if defined(__AMX_TILE__) && defined(__AMX_INT8__) && defined(__AVX512F__) &&                      \
    defined(__AVX512BW__) && defined(__linux__)
#include "kernels/amx_tiles.h"

#include <cpuid.h>

namespace llm {

namespace {

constexpr int kTile = 16;                // weight rows and tokens per tile
constexpr int64_t kBlock = kQ8BlockSize; // k per tile multiply
constexpr int64_t kQuantsAt = 128;       // quants in a panel block
constexpr int64_t kScalesAt = 64;        // token scales in a panel block
static_assert(kQ8PanelTokens == kTile, "a panel is one B tile wide");

// Tiles 0-3: int32 block sums C (rows x 16 tokens); 4-5: weights A (rows x
// 32 bytes); 6-7: activations B (8 x 64 bytes: 16 tokens x 4 values per
// row). `rows`: the weight rows of the tile, fewer than 16 at a matrix's end
// (the rows past it are never read).
void configure_int8_tiles(int rows) {
    TileConfig cfg;
    for (int i = 0; i < 8; ++i) {
        cfg.colsb[i] = i == 4 || i == 5 ? 32 : 64;
        cfg.rows[i] = static_cast<uint8_t>(i >= 6 ? 8 : rows);
    }
    _tile_loadconfig(&cfg);
}

// GCC's tile intrinsics are asm statements that do not tell the compiler
// they touch memory: this orders them with the plain loads and stores.
inline void memory_barrier() {
    __asm__ __volatile__("" ::: "memory");
}

inline __mmask16 first_lanes(int64_t n) {
    return static_cast<__mmask16>(n >= 16 ? 0xffffu : (1u << n) - 1u);
}

// The weight rows' layout: Q8_0 rows (fp16 scales, then the quants); Q4_0
// rows unpacked by unpack_q4_0_rows (fp32 scales, then signed codes); or
// the int8 form of the block types (quant_blocks.h: fp32 scales, fp32
// offsets, then signed codes).
enum class Rows { Q8_0, Q4Codes, Int8Form };

template <Rows R> inline const int8_t *row_quants(const uint8_t *row, int64_t nb) {
    return reinterpret_cast<const int8_t *>(row + (R == Rows::Q8_0      ? 2
                                                   : R == Rows::Q4Codes ? 4
                                                                        : 8) *
                                                      nb);
}

// ws[16 r + j] = the scale of row r's block b + j (j < 16, blocks < nb), as
// fp32, and with the int8 form wo[16 r + j] its offset; zero for rows past
// `rows`.
template <Rows R>
inline void load_row_scales(const uint8_t *w, size_t stride, int rows, int64_t b, int64_t nb,
                            float *ws, float *wo) {
    const __mmask16 m = first_lanes(nb - b);
    for (int r = 0; r < kTile; ++r) {
        __m512 v = _mm512_setzero_ps(), o = _mm512_setzero_ps();
        if (r < rows) {
            const uint8_t *row = w + r * stride;
            if constexpr (R == Rows::Q8_0) {
                v = _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, row + 2 * b));
            } else {
                v = _mm512_maskz_loadu_ps(m, reinterpret_cast<const float *>(row) + b);
                if (R == Rows::Int8Form)
                    o = _mm512_maskz_loadu_ps(m, reinterpret_cast<const float *>(row) + nb + b);
            }
        }
        _mm512_store_ps(ws + 16 * r, v);
        if (R == Rows::Int8Form) _mm512_store_ps(wo + 16 * r, o);
    }
}

// acc[r] (16 tokens) += float(c[r]) x (ws[16 r] x xs), and with the int8
// form + wo[16 r] x each token's scale x the sum of its quants (xsum, from
// the panel's corr): exactly what q8_gemm_tile computes.
template <Rows R>
inline void add_block(const int32_t *c, const float *ws, const float *wo, const uint8_t *blk,
                      __m512 acc[kTile]) {
    const __m512 xs = _mm512_loadu_ps(reinterpret_cast<const float *>(blk + kScalesAt));
    __m512 xsum = xs;
    if (R == Rows::Int8Form)
        xsum = _mm512_mul_ps(
            _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_loadu_si512(blk)), _mm512_set1_ps(-1.0f / 128)),
            xs);
#pragma GCC unroll 16
    for (int r = 0; r < kTile; ++r) {
        const __m512 dot = _mm512_cvtepi32_ps(_mm512_load_si512(c + 16 * r));
        acc[r] = _mm512_fmadd_ps(dot, _mm512_mul_ps(_mm512_set1_ps(ws[16 * r]), xs), acc[r]);
        if (R == Rows::Int8Form) acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(wo[16 * r]), xsum, acc[r]);
    }
}

// Block `blk`'s products into tile C, from weight tile A and token tile B.
#define LLM_AMX_ISSUE(C, A, B, blk)                                                                \
    do {                                                                                           \
        _tile_loadd(A, q + (blk)*kBlock, stride);                                                  \
        _tile_loadd(B, xp + (blk)*kQ8PanelBlockBytes + kQuantsAt, 64);                             \
        _tile_zero(C);                                                                             \
        _tile_dpbssd(C, A, B);                                                                     \
    } while (0)
// Block `blk`'s sums out of tile C into the accumulators.
#define LLM_AMX_FINISH(C, blk)                                                                     \
    do {                                                                                           \
        _tile_stored(C, stash[C], 64);                                                             \
        memory_barrier();                                                                          \
        add_block<R>(stash[C], ws + ((blk)&15), wo + ((blk)&15), xp + (blk)*kQ8PanelBlockBytes,    \
                     acc);                                                                         \
    } while (0)

// One tile of `rows` weight rows x one panel of 16 tokens, nt of them
// stored: y[t * ldy + r] for t < nt, r < rows. Blocks go through C tiles
// 0-3 in turn; A and B tiles 4 and 6 take the even blocks, 5 and 7 the odd.
template <Rows R>
void tile_panel(const uint8_t *w, size_t stride, int rows, int64_t nb, const uint8_t *xp, int nt,
                float *y, int64_t ldy) {
    alignas(64) int32_t stash[4][kTile * kTile];
    alignas(64) float ws[kTile * kTile], wo[kTile * kTile];
    if (rows < kTile) __builtin_memset(stash, 0, sizeof(stash)); // (rows the tiles leave out)
    const int8_t *q = row_quants<R>(w, nb);
    __m512 acc[kTile];
#pragma GCC unroll 16
    for (int r = 0; r < kTile; ++r)
        acc[r] = _mm512_setzero_ps();
    LLM_AMX_ISSUE(0, 4, 6, 0);
    if (nb > 1) LLM_AMX_ISSUE(1, 5, 7, 1);
    for (int64_t b = 0; b < nb; b += 4) {
        if (b % 16 == 0) load_row_scales<R>(w, stride, rows, b, nb, ws, wo);
        if (b + 2 < nb) LLM_AMX_ISSUE(2, 4, 6, b + 2);
        if (b + 3 < nb) LLM_AMX_ISSUE(3, 5, 7, b + 3);
        LLM_AMX_FINISH(0, b);
        if (b + 1 < nb) LLM_AMX_FINISH(1, b + 1);
        if (b + 4 < nb) LLM_AMX_ISSUE(0, 4, 6, b + 4);
        if (b + 5 < nb) LLM_AMX_ISSUE(1, 5, 7, b + 5);
        if (b + 2 < nb) LLM_AMX_FINISH(2, b + 2);
        if (b + 3 < nb) LLM_AMX_FINISH(3, b + 3);
    }
    // Rows x tokens to tokens x rows, then one store per token.
    __m512i out[kTile];
#pragma GCC unroll 16
    for (int r = 0; r < kTile; ++r)
        out[r] = _mm512_castps_si512(acc[r]);
    transpose16(out);
    const __mmask16 m = first_lanes(rows);
    for (int t = 0; t < nt; ++t)
        _mm512_mask_storeu_ps(y + t * ldy, m, _mm512_castsi512_ps(out[t]));
}

#undef LLM_AMX_ISSUE
#undef LLM_AMX_FINISH

// A tile of rows against every panel of tokens (the rows stay in cache
// while the panels pass). The tiles must be configured for `rows`.
template <Rows R>
void row_tile(const uint8_t *w, size_t stride, int rows, const uint8_t *xq, int64_t n_tokens,
              int64_t cols, float *y, int64_t ldy) {
    const int64_t nb = cols / kBlock, panel_bytes = act_q8_panel_bytes(cols);
    for (int64_t t = 0; t < n_tokens; t += kTile) {
        const int nt = static_cast<int>(n_tokens - t < kTile ? n_tokens - t : kTile);
        tile_panel<R>(w, stride, rows, nb, xq + t / kTile * panel_bytes, nt, y + t * ldy, ldy);
    }
}

void gemm_q8_0_amx(const uint8_t *w, size_t stride, int64_t n_rows, const uint8_t *xq,
                   int64_t n_tokens, int64_t cols, float *y, int64_t ldy) {
    if (cols < kBlock) return;
    const int64_t full = n_rows / kTile * kTile;
    configure_int8_tiles(kTile);
    for (int64_t r = 0; r < full; r += kTile)
        row_tile<Rows::Q8_0>(w + r * stride, stride, kTile, xq, n_tokens, cols, y + r, ldy);
    if (full < n_rows) {
        const int rows = static_cast<int>(n_rows - full);
        configure_int8_tiles(rows);
        row_tile<Rows::Q8_0>(w + full * stride, stride, rows, xq, n_tokens, cols, y + full, ldy);
    }
    _tile_release();
}

// The int8 form's rows (gemm_q8_scaled), as the VNNI kernel takes them.
void gemm_q8_scaled_amx(const uint8_t *w, size_t stride, int64_t n_rows, const uint8_t *xq,
                        int64_t n_tokens, int64_t cols, float *y, int64_t ldy) {
    if (cols < kBlock) return;
    int configured = 0;
    for (int64_t r = 0; r < n_rows; r += kTile) {
        const int rows = static_cast<int>(n_rows - r < kTile ? n_rows - r : kTile);
        if (rows != configured) configure_int8_tiles(configured = rows);
        row_tile<Rows::Int8Form>(w + r * stride, stride, rows, xq, n_tokens, cols, y + r, ldy);
    }
    _tile_release();
}

// `rows` Q4_0 rows as q4_0_codes_row_bytes(cols) bytes each: the blocks'
// fp16 scales as fp32 (exact), then the codes q - 8 as signed bytes, value j
// of a block from the low nibble of its byte j, value 16 + j from the high.
void unpack_q4_0_rows(const uint8_t *w, size_t stride, int rows, int64_t cols, uint8_t *out) {
    const int64_t nb = cols / kBlock, row_bytes = q4_0_codes_row_bytes(cols);
    const __m128i nibbles = _mm_set1_epi8(0x0f), eight = _mm_set1_epi8(8);
    for (int r = 0; r < rows; ++r) {
        const uint8_t *row = w + r * stride;
        float *scales = reinterpret_cast<float *>(out + r * row_bytes);
        uint8_t *codes = out + r * row_bytes + 4 * nb;
        for (int64_t b = 0; b < nb; ++b) {
            const uint8_t *blk = row + b * kQ4_0Bytes;
            uint16_t d;
            __builtin_memcpy(&d, blk, 2);
            scales[b] = _cvtsh_ss(d);
            const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(blk + 2));
            const __m128i lo = _mm_sub_epi8(_mm_and_si128(v, nibbles), eight);
            const __m128i hi = _mm_sub_epi8(_mm_and_si128(_mm_srli_epi16(v, 4), nibbles), eight);
            _mm_storeu_si128(reinterpret_cast<__m128i *>(codes + b * kBlock), lo);
            _mm_storeu_si128(reinterpret_cast<__m128i *>(codes + b * kBlock + 16), hi);
        }
    }
    memory_barrier(); // (the tile loads that read them are asm, see above)
}

// Q4_0 rows unpacked 16 at a time into the scratch (gemm_q4_0_scratch_bytes
// holds kQ4PanelRows >= 16 rows), then the same tiles as Q8_0's: the sums
// the VNNI kernel makes of the same unpacked rows.
void gemm_q4_0_amx(const uint8_t *w, size_t stride, int64_t n_rows, const uint8_t *xq,
                   int64_t n_tokens, int64_t cols, float *y, int64_t ldy, void *scratch) {
    static_assert(kQ4PanelRows >= kTile, "the scratch holds a tile of rows");
    if (cols < kBlock) return;
    uint8_t *panel = static_cast<uint8_t *>(scratch);
    const int64_t row_bytes = q4_0_codes_row_bytes(cols);
    int configured = 0;
    for (int64_t r = 0; r < n_rows; r += kTile) {
        const int rows = static_cast<int>(n_rows - r < kTile ? n_rows - r : kTile);
        if (rows != configured) configure_int8_tiles(configured = rows);
        unpack_q4_0_rows(w + r * stride, stride, rows, cols, panel);
        row_tile<Rows::Q4Codes>(panel, static_cast<size_t>(row_bytes), rows, xq, n_tokens, cols,
                                y + r, ldy);
    }
    _tile_release();
}

bool cpu_has_amx_int8() {
    unsigned a = 0, b = 0, c = 0, d = 0;
    return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (d & (1u << 25));
}

} // namespace

bool fill_amx_int8_kernels(KernelTable &t) {
    if (!cpu_has_amx_int8()) return false;
    t.gemm_q8_0 = gemm_q8_0_amx;
    t.gemm_q4_0 = gemm_q4_0_amx;
    t.gemm_q8_scaled = gemm_q8_scaled_amx;
    return true;
}

} // namespace llm

#else

namespace llm {
bool fill_amx_int8_kernels(KernelTable &) {
    return false;
}
} // namespace llm

#endif
