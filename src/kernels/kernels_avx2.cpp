// AVX2 + FMA + F16C kernels (CMakeLists.txt gives this file alone the
// flags; they run only when cpuid reports the features).
// kernels_avx2vnni.cpp compiles it once more with AVX-VNNI (LLM_AVX2_VNNI_TABLE),
// the 256-bit vpdpbusd of CPUs that have it without AVX-512 (Intel's
// Alder Lake and later client cores): the Q8_0 dot product uses it, and
// batches of Q8_0 weights get an int8 GEMM.
#include "kernels/kernel_table.h"

#if defined(LLM_AVX2_VNNI_TABLE)
#define LLM_AVX2_FILL fill_avx2vnni_kernels
#define LLM_AVX2_LEVEL SimdLevel::Avx2Vnni
#else
#define LLM_AVX2_FILL fill_avx2_kernels
#define LLM_AVX2_LEVEL SimdLevel::Avx2
#endif
#if defined(LLM_AVX2_VNNI_TABLE) && !defined(__AVXVNNI__)
#define LLM_AVX2_READY 0
#else
#define LLM_AVX2_READY 1
#endif

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__) && LLM_AVX2_READY
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "kernels/float_convert.h"
#include "kernels/simd_primitives.h"

namespace llm {
namespace {

constexpr int kLanes = 8;
constexpr int kTileRows = 6,
              kTileVectors = 2; // 6 x 2 accumulators + 2 inputs + 1 broadcast: 15 of 16 registers
using vf = __m256;

// Lanes [0, n) set: a sign-bit mask for maskload/maskstore.
inline __m256i first(int64_t n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)),
                              _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
inline vf vzero() {
    return _mm256_setzero_ps();
}
inline vf vset(float a) {
    return _mm256_set1_ps(a);
}
inline vf vload(const float *p) {
    return _mm256_loadu_ps(p);
}
inline vf vload_n(const float *p, int64_t n) {
    return _mm256_maskload_ps(p, first(n));
}
inline void vstore(float *p, vf v) {
    _mm256_storeu_ps(p, v);
}
inline void vstore_n(float *p, vf v, int64_t n) {
    _mm256_maskstore_ps(p, first(n), v);
}
LLM_SIMD_BINARY(vadd, _mm256_add_ps)
LLM_SIMD_BINARY(vsub, _mm256_sub_ps)
LLM_SIMD_BINARY(vmul, _mm256_mul_ps)
LLM_SIMD_BINARY(vdiv, _mm256_div_ps)
LLM_SIMD_BINARY(vmax, _mm256_max_ps)
LLM_SIMD_BINARY(vmin, _mm256_min_ps)
inline vf vabs(vf a) {
    return _mm256_and_ps(a, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff)));
}
inline vf vfma(vf a, vf b, vf c) {
    return _mm256_fmadd_ps(a, b, c);
}
inline float hsum128(__m128 s) {
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}
inline float vsum(vf v) {
    return hsum128(_mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1)));
}
inline float vmaxall(vf v) {
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    s = _mm_max_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}
inline void vsum4(vf a, vf b, vf c, vf d, float *out) {
    const vf abcd = _mm256_hadd_ps(_mm256_hadd_ps(a, b), _mm256_hadd_ps(c, d));
    _mm_storeu_ps(out, _mm_add_ps(_mm256_castps256_ps128(abcd), _mm256_extractf128_ps(abcd, 1)));
}
// 16-bit loads of n < 8 values go through a zeroed buffer (no 16-bit
// masked loads in AVX2).
inline __m128i load_u16_n(const uint16_t *p, int64_t n) {
    uint16_t buf[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    __builtin_memcpy(buf, p, static_cast<size_t>(n) * 2);
    return _mm_loadu_si128(reinterpret_cast<const __m128i *>(buf));
}
inline vf widen_bf16(__m128i h) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}
inline vf vload_bf16(const uint16_t *p) {
    return widen_bf16(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p)));
}
inline vf vload_bf16_n(const uint16_t *p, int64_t n) {
    return widen_bf16(load_u16_n(p, n));
}
inline vf vload_f16(const uint16_t *p) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p)));
}
inline vf vload_f16_n(const uint16_t *p, int64_t n) {
    return _mm256_cvtph_ps(load_u16_n(p, n));
}
// v clamped to +-65504 (min_ps gives its second operand for a NaN, so a
// NaN becomes 65504) and rounded to fp16, ties to even (as
// f32_to_f16_clamped).
inline void vstore_f16_clamped(uint8_t *p, vf v) {
    const vf c =
        _mm256_max_ps(_mm256_min_ps(v, _mm256_set1_ps(65504.0f)), _mm256_set1_ps(-65504.0f));
    _mm_storeu_si128(reinterpret_cast<__m128i *>(p),
                     _mm256_cvtps_ph(c, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
inline vf vload_i8(const int8_t *p) {
    const __m128i b = _mm_loadl_epi64(reinterpret_cast<const __m128i *>(p));
    return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(b));
}
inline vf vround(vf v) {
    return _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}
inline vf vpow2i(vf n) {
    const __m256i e = _mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127));
    return _mm256_castsi256_ps(_mm256_slli_epi32(e, 23));
}
inline void vstore_i8(int8_t *p, vf v) {
    const __m256i i = _mm256_cvtps_epi32(v);
    const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(i), _mm256_extracti128_si256(i, 1));
    _mm_storel_epi64(reinterpret_cast<__m128i *>(p), _mm_packs_epi16(w, w));
}
inline float f16_scalar(uint16_t h) {
    return _cvtsh_ss(h);
}

#if defined(__AVXVNNI__)
#define LLM_SIMD_Q8_GEMM 1
using vi = __m256i;
// 3 x 2 int32 sums + 3 x 2 fp32 sums + 2 inputs + broadcast + bias: 16 registers
constexpr int kQ8TileRows = 3, kQ8TileVectors = 2;
inline vi vi_load(const uint8_t *p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p));
}
inline vi vi_set1(int32_t a) {
    return _mm256_set1_epi32(a);
}
inline vi vi_xor(vi a, vi b) {
    return _mm256_xor_si256(a, b);
}
inline vi vi_dpbusd(vi acc, vi u, vi s) {
    return _mm256_dpbusd_avx_epi32(acc, u, s);
}
inline vf vi_to_f(vi a) {
    return _mm256_cvtepi32_ps(a);
}
#endif

} // namespace

#include "kernels/simd_kernels.inc"

namespace {

// The activations' block scales gathered once per call into one array (zero
// past the last block, up to a multiple of 8), and with AVX-VNNI one bias
// vector per block (see dot_i8): per row and block, the kernel then takes
// its scale from a vector of 8 instead of widening and multiplying scalars.
struct ActView {
    const BlockQ8Act *x;
    const float *scales;
    const int32_t *bias; // 8 lanes per block
};

thread_local std::vector<int32_t> t_act_bias;

#if defined(__AVXVNNI__)
// vpdpbusd multiplies unsigned by signed bytes: w ^ 0x80 is w + 128 as an
// unsigned byte, and the bias, -128 times the sum of the same 4
// activations (the same for every row), takes the 128 x back out. Exact.
inline __m256i dot_i8(__m256i w, __m256i x, const int32_t *bias) {
    return _mm256_dpbusd_avx_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(bias)),
                                   _mm256_xor_si256(w, _mm256_set1_epi8(-128)), x);
}
#else
// maddubs's int16 pair sums could saturate with w + 128, so |w| meets x
// carrying w's sign instead; |w|, |x| <= 127, so they cannot.
inline __m256i dot_i8(__m256i w, __m256i x, const int32_t *) {
    const __m256i pairs = _mm256_maddubs_epi16(_mm256_abs_epi8(w), _mm256_sign_epi8(x, w));
    return _mm256_madd_epi16(pairs, _mm256_set1_epi16(1));
}
#endif

ActView act_view(const BlockQ8Act *x, int64_t nb) {
#if defined(__AVXVNNI__)
    const auto n_bias = static_cast<size_t>(nb * 8);
    if (t_act_bias.size() < n_bias) t_act_bias.resize(n_bias);
    for (int64_t k = 0; k < nb; ++k) {
        const __m256i xq = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(x[k].q));
        const __m256i sums =
            _mm256_dpbusd_avx_epi32(_mm256_setzero_si256(), _mm256_set1_epi8(-128), xq);
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(t_act_bias.data() + k * 8),
                            _mm256_sub_epi32(_mm256_setzero_si256(), sums));
    }
#endif
    return {x, act_scales(x, nb), t_act_bias.data()};
}

// One Q8 block per register, R rows at a time (see for_lanes). Per
// group of 8 blocks, each row's 8 scales are widened at once and multiplied
// by the activations' scales; each block then takes its lane by a permute.
// (The 16-byte load of a last, partial group's scales reads into the row's
// quants; those lanes are never used.) Row sums are vsum4s, a lone row's
// too (store_sums).
template <int R, bool Prefetch>
inline void q8_rows(const uint8_t *const *rows, const ActView &a, int64_t cols, float *const *y) {
    const int64_t nb = cols / kQ8BlockSize;
    const int8_t *q[R];
    vf acc[R];
#pragma GCC unroll 8
    for (int i = 0; i < R; ++i) {
        q[i] = q8_0_quants(rows[i], cols);
        acc[i] = vzero();
    }
    for (int64_t g = 0; g < nb; g += 8) {
        const int64_t end = nb - g < 8 ? nb : g + 8;
        const vf xs = vload(a.scales + g);
        vf c[R];
#pragma GCC unroll 8
        for (int i = 0; i < R; ++i)
            c[i] = vmul(_mm256_cvtph_ps(
                            _mm_loadu_si128(reinterpret_cast<const __m128i *>(rows[i] + 2 * g))),
                        xs);
        __m256i lane = _mm256_setzero_si256();
        for (int64_t k = g; k < end; ++k, lane = _mm256_add_epi32(lane, _mm256_set1_epi32(1))) {
            if (Prefetch && k % 2 == 0)
#pragma GCC unroll 8
                for (int i = 0; i < R; ++i)
                    prefetch(reinterpret_cast<const uint8_t *>(q[i] + k * kQ8BlockSize) +
                             stream_prefetch_ahead(R, true));
            const __m256i xq = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(a.x[k].q));
            const int32_t *bias = a.bias + k * 8;
#pragma GCC unroll 8
            for (int i = 0; i < R; ++i) {
                const __m256i wq =
                    _mm256_loadu_si256(reinterpret_cast<const __m256i *>(q[i] + k * kQ8BlockSize));
                acc[i] = vfma(_mm256_cvtepi32_ps(dot_i8(wq, xq, bias)),
                              _mm256_permutevar8x32_ps(c[i], lane), acc[i]);
            }
        }
    }
    store_sums<R>(acc, y);
}

void matvec_q8_0_avx2(const uint8_t *const *w, size_t stride, int64_t cols, const BlockQ8Act *x,
                      float *const *y, int64_t n_lanes, int64_t n_steps) {
    const ActView a = act_view(x, cols / kQ8BlockSize);
    for_lanes(
        w, stride, y, n_lanes, n_steps,
        [&](auto streams, const uint8_t *const *p, float *const *out) {
            q8_rows<decltype(streams)::value, true>(p, a, cols, out);
        },
        [&](const uint8_t *row, float *out) { q8_rows<1, false>(&row, a, cols, &out); });
}

// Up to kTokenGroup tokens at once (matvec_q8_0_tokens): R rows x T
// tokens of accumulators, each weight block loaded (and offset for dot_i8)
// once for the T tokens. Per (row, token) the same integer sums, scales
// and FMAs in the same order as q8_rows, so the same bits.
constexpr int kTokenGroup = 2;

template <int R, int T, bool Prefetch>
inline void q8_rows_tokens(const uint8_t *const *rows, const ActView *a, int64_t cols,
                           float *const *y, int64_t ldy) {
    const int64_t nb = cols / kQ8BlockSize;
    const int8_t *q[R];
    vf acc[R][T];
#pragma GCC unroll 8
    for (int i = 0; i < R; ++i) {
        q[i] = q8_0_quants(rows[i], cols);
#pragma GCC unroll 8
        for (int t = 0; t < T; ++t)
            acc[i][t] = vzero();
    }
    for (int64_t g = 0; g < nb; g += 8) {
        const int64_t end = nb - g < 8 ? nb : g + 8;
        vf c[R][T];
#pragma GCC unroll 8
        for (int i = 0; i < R; ++i) {
            const vf ws = _mm256_cvtph_ps(
                _mm_loadu_si128(reinterpret_cast<const __m128i *>(rows[i] + 2 * g)));
#pragma GCC unroll 8
            for (int t = 0; t < T; ++t)
                c[i][t] = vmul(ws, vload(a[t].scales + g));
        }
        __m256i lane = _mm256_setzero_si256();
        for (int64_t k = g; k < end; ++k, lane = _mm256_add_epi32(lane, _mm256_set1_epi32(1))) {
            if (Prefetch && k % 2 == 0)
#pragma GCC unroll 8
                for (int i = 0; i < R; ++i)
                    prefetch(reinterpret_cast<const uint8_t *>(q[i] + k * kQ8BlockSize) +
                             stream_prefetch_ahead(R, true));
            __m256i xq[T];
#pragma GCC unroll 8
            for (int t = 0; t < T; ++t)
                xq[t] = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(a[t].x[k].q));
#pragma GCC unroll 8
            for (int i = 0; i < R; ++i) {
                const __m256i wq =
                    _mm256_loadu_si256(reinterpret_cast<const __m256i *>(q[i] + k * kQ8BlockSize));
#pragma GCC unroll 8
                for (int t = 0; t < T; ++t)
                    acc[i][t] = vfma(_mm256_cvtepi32_ps(dot_i8(wq, xq[t], a[t].bias + k * 8)),
                                     _mm256_permutevar8x32_ps(c[i][t], lane), acc[i][t]);
            }
        }
    }
#pragma GCC unroll 8
    for (int t = 0; t < T; ++t) {
        vf at[R];
        float *yt[R];
#pragma GCC unroll 8
        for (int i = 0; i < R; ++i) {
            at[i] = acc[i][t];
            yt[i] = y[i] + t * ldy;
        }
        store_sums<R>(at, yt);
    }
}

// Each token's ActView, kept per thread: scales (and with AVX-VNNI biases)
// of token t at t times a stride.
thread_local std::vector<float> t_tok_scales;
thread_local std::vector<int32_t> t_tok_bias;

template <int T>
void q8_tokens_group(const uint8_t *const *w, size_t stride, int64_t cols, const ActView *a,
                     float *const *y, int64_t ldy, int64_t n_lanes, int64_t n_steps) {
    for_lanes(
        w, stride, y, n_lanes, n_steps,
        [&](auto streams, const uint8_t *const *p, float *const *out) {
            constexpr int S = decltype(streams)::value;
#pragma GCC unroll 2
            for (int s = 0; s < S; s += 4)
                q8_rows_tokens<4, T, true>(p + s, a, cols, out + s, ldy);
        },
        [&](const uint8_t *row, float *out) {
            q8_rows_tokens<1, T, false>(&row, a, cols, &out, ldy);
        });
}

void matvec_q8_0_tokens_avx2(const uint8_t *const *w, size_t stride, int64_t cols,
                             const BlockQ8Act *x, int64_t n_tokens, float *const *y, int64_t ldy,
                             int64_t n_lanes, int64_t n_steps) {
    const int64_t nb = cols / kQ8BlockSize;
    const int64_t ns = (nb + 7) / 8 * 8, nbias = nb * 8;
    if (t_tok_scales.size() < static_cast<size_t>(n_tokens * ns))
        t_tok_scales.resize(static_cast<size_t>(n_tokens * ns));
    if (t_tok_bias.size() < static_cast<size_t>(n_tokens * nbias))
        t_tok_bias.resize(static_cast<size_t>(n_tokens * nbias));
    for (int64_t t0 = 0; t0 < n_tokens; t0 += kTokenGroup) {
        const int nt = static_cast<int>(std::min<int64_t>(kTokenGroup, n_tokens - t0));
        ActView a[kTokenGroup];
        for (int t = 0; t < nt; ++t) {
            const BlockQ8Act *xt = x + (t0 + t) * nb;
            float *sc = t_tok_scales.data() + (t0 + t) * ns;
            for (int64_t b = 0; b < ns; ++b)
                sc[b] = b < nb ? xt[b].scale : 0.0f;
            int32_t *bias = t_tok_bias.data() + (t0 + t) * nbias;
#if defined(__AVXVNNI__)
            for (int64_t b = 0; b < nb; ++b) {
                const __m256i xq = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(xt[b].q));
                const __m256i sums =
                    _mm256_dpbusd_avx_epi32(_mm256_setzero_si256(), _mm256_set1_epi8(-128), xq);
                _mm256_storeu_si256(reinterpret_cast<__m256i *>(bias + b * 8),
                                    _mm256_sub_epi32(_mm256_setzero_si256(), sums));
            }
#endif
            a[t] = {xt, sc, bias};
        }
        float *yt[kMaxRowStreams];
        for (int64_t l = 0; l < n_lanes; ++l)
            yt[l] = y[l] + t0 * ldy;
        if (nt == 1)
            q8_tokens_group<1>(w, stride, cols, a, yt, ldy, n_lanes, n_steps);
        else
            q8_tokens_group<kTokenGroup>(w, stride, cols, a, yt, ldy, n_lanes, n_steps);
    }
}

} // namespace

bool LLM_AVX2_FILL(KernelTable &t) {
    fill_common_simd_kernels(t);
    t.matvec_q8_0 = matvec_q8_0_avx2;
    t.matvec_q8_0_tokens = matvec_q8_0_tokens_avx2;
    t.level = LLM_AVX2_LEVEL;
    return true;
}

} // namespace llm

#else

namespace llm {
bool LLM_AVX2_FILL(KernelTable &) {
    return false;
}
} // namespace llm

#endif
