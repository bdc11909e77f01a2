// AVX-512 (F/BW/VL/DQ) kernels: the primitives of simd_kernels.inc plus an
// int8 Q8_0 dot product. CMakeLists.txt gives this file alone the AVX-512
// flags, and kernels_avx512vnni.cpp compiles it once more with VNNI as well
// (LLM_AVX512_VNNI_TABLE): each table then comes from one translation unit
// built for exactly the instructions it may use, and runs only when cpuid
// reports them.
#include "kernels/kernel_table.h"

#if defined(LLM_AVX512_VNNI_TABLE)
#define LLM_AVX512_FILL fill_avx512vnni_kernels
#define LLM_AVX512_LEVEL SimdLevel::Avx512Vnni
#else
#define LLM_AVX512_FILL fill_avx512_kernels
#define LLM_AVX512_LEVEL SimdLevel::Avx512
#endif
#if defined(LLM_AVX512_VNNI_TABLE) && !defined(__AVX512VNNI__)
#define LLM_AVX512_READY 0
#else
#define LLM_AVX512_READY 1
#endif

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) &&                      \
    defined(__AVX512DQ__) && defined(__FMA__) && defined(__F16C__) && LLM_AVX512_READY
#include "kernels/avx512_intrinsics.h"

#include "kernels/float_convert.h"
#include "kernels/simd_primitives.h"

#include <algorithm>
#include <cstring>

namespace llm {

namespace {

constexpr int kLanes = 16;
// 6 rows x 4 vectors (64 tokens): 24 accumulators + 4 inputs + 1 broadcast
// of 32 registers, 10 loads per 24 multiply-adds. The 12 x 2 tile used
// before has as many accumulators but takes 14 loads and broadcasts from
// 12 weight rows at once. On an Intel Xeon (Emerald Rapids), 128-token
// prefill, runs taking turns, one thread: qwen2.5-0.5b f32 115-118 -> 127-135
// tok/s, stories110M f32 484-532 -> 593-624; bf16 (widened into the same
// GEMM) 3-17% faster. Not yet measured on AMD Zen 4/5.
constexpr int kTileRows = 6, kTileVectors = 4;
using vf = __m512;

inline __mmask16 first(int64_t n) {
    return static_cast<__mmask16>((1u << n) - 1u);
}
inline vf vzero() {
    return _mm512_setzero_ps();
}
inline vf vset(float a) {
    return _mm512_set1_ps(a);
}
inline vf vload(const float *p) {
    return _mm512_loadu_ps(p);
}
inline vf vload_n(const float *p, int64_t n) {
    return _mm512_maskz_loadu_ps(first(n), p);
}
inline void vstore(float *p, vf v) {
    _mm512_storeu_ps(p, v);
}
inline void vstore_n(float *p, vf v, int64_t n) {
    _mm512_mask_storeu_ps(p, first(n), v);
}
LLM_SIMD_BINARY(vadd, _mm512_add_ps)
LLM_SIMD_BINARY(vsub, _mm512_sub_ps)
LLM_SIMD_BINARY(vmul, _mm512_mul_ps)
LLM_SIMD_BINARY(vdiv, _mm512_div_ps)
LLM_SIMD_BINARY(vmax, _mm512_max_ps)
LLM_SIMD_BINARY(vmin, _mm512_min_ps)
inline vf vabs(vf a) {
    return _mm512_abs_ps(a);
}
inline vf vfma(vf a, vf b, vf c) {
    return _mm512_fmadd_ps(a, b, c);
}
// (GCC 12's _mm512_reduce_*_ps trip -Wuninitialized in its own header.)
inline __m128 halve_to_128(vf v, __m256 (*op)(__m256, __m256), __m128 (*op4)(__m128, __m128)) {
    const __m256 h = op(_mm512_castps512_ps256(v), _mm512_extractf32x8_ps(v, 1));
    return op4(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
}
inline float vsum(vf v) {
    __m128 s = halve_to_128(v, _mm256_add_ps, _mm_add_ps);
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
}
inline float vmaxall(vf v) {
    __m128 s = halve_to_128(v, _mm256_max_ps, _mm_max_ps);
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_max_ss(s, _mm_movehdup_ps(s)));
}
// Four horizontal sums at once: interleave pairs so that each step halves
// the number of vectors instead of reducing each one separately.
inline void vsum4(vf a, vf b, vf c, vf d, float *out) {
    const vf ab = _mm512_add_ps(_mm512_unpacklo_ps(a, b), _mm512_unpackhi_ps(a, b));
    const vf cd = _mm512_add_ps(_mm512_unpacklo_ps(c, d), _mm512_unpackhi_ps(c, d));
    // per 128-bit lane: [a, b, a, b] + [c, d, c, d] partial sums -> [a, b, c, d]
    const vf abcd = _mm512_add_ps(_mm512_shuffle_ps(ab, cd, 0x44), _mm512_shuffle_ps(ab, cd, 0xee));
    const __m256 h = _mm256_add_ps(_mm512_castps512_ps256(abcd), _mm512_extractf32x8_ps(abcd, 1));
    _mm_storeu_ps(out, _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1)));
}
inline vf vload_bf16(const uint16_t *p) {
    const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p));
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}
inline vf vload_bf16_n(const uint16_t *p, int64_t n) {
    const __m256i h = _mm256_maskz_loadu_epi16(first(n), p);
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}
inline vf vload_f16(const uint16_t *p) {
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(p)));
}
inline vf vload_f16_n(const uint16_t *p, int64_t n) {
    return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(first(n), p));
}
// As the AVX2 one: min_ps turns a NaN into 65504, then fp16 ties to even.
inline void vstore_f16_clamped(uint8_t *p, vf v) {
    const vf c =
        _mm512_max_ps(_mm512_min_ps(v, _mm512_set1_ps(65504.0f)), _mm512_set1_ps(-65504.0f));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(p),
                        _mm512_cvtps_ph(c, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
inline vf vload_i8(const int8_t *p) {
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
    return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(b));
}
inline vf vround(vf v) {
    return _mm512_roundscale_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}
inline vf vpow2i(vf n) {
    const __m512i e = _mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127));
    return _mm512_castsi512_ps(_mm512_slli_epi32(e, 23));
}
inline void vstore_i8(int8_t *p, vf v) {
    _mm_storeu_si128(reinterpret_cast<__m128i *>(p), _mm512_cvtsepi32_epi8(_mm512_cvtps_epi32(v)));
}
inline float f16_scalar(uint16_t h) {
    return _cvtsh_ss(h);
}

#if defined(__AVX512VNNI__)
#define LLM_SIMD_Q8_GEMM 1
using vi = __m512i;
constexpr int kQ8TileRows = 6, kQ8TileVectors = 2; // 6 x 2 int32 + 6 x 2 fp32 sums
inline vi vi_load(const uint8_t *p) {
    return _mm512_loadu_si512(p);
}
inline vi vi_set1(int32_t a) {
    return _mm512_set1_epi32(a);
}
inline vi vi_xor(vi a, vi b) {
    return _mm512_xor_si512(a, b);
}
inline vi vi_dpbusd(vi acc, vi u, vi s) {
    return _mm512_dpbusd_epi32(acc, u, s);
}
inline vf vi_to_f(vi a) {
    return _mm512_cvtepi32_ps(a);
}
#endif

} // namespace

#include "kernels/simd_kernels.inc"

namespace {

// Two activation blocks (64 values) in one register: block k in the low
// half, k+1 in the high half.
inline __m512i load_act_pair(const BlockQ8Act *b) {
    const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(b[0].q));
    const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(b[1].q));
    return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
}
inline __m512i load_act_one(const BlockQ8Act *b) {
    return _mm512_zextsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(b[0].q)));
}

// What the row kernel needs of the activations besides their quants,
// computed once per call for all rows: the blocks' scales in one array,
// zero past the last block up to a multiple of 16, and (with VNNI) one bias
// vector per pair of blocks, see dot_i8. Built per call, not per row: the
// scales used to be gathered per group of 16 blocks for every 4 rows, and
// that gather (16 scalar stores read back as one vector) took about a
// quarter of the kernel's time.
struct ActView {
    const BlockQ8Act *x;
    const float *scales;
    const int32_t *bias; // 16 lanes per pair of blocks
};

thread_local std::vector<int32_t> t_act_bias;

#if defined(__AVX512VNNI__)
// Signed int8 dot products summed in groups of 4 into int32 lanes. vpdpbusd
// multiplies unsigned by signed bytes: w ^ 0x80 is w + 128 as an unsigned
// byte, so it sums (w + 128) x, and the bias, -128 times the sum of the
// same 4 activations (the same for every row), takes the 128 x back out.
// Exact: every partial sum fits in int32.
inline __m512i dot_i8(__m512i w, __m512i x, const int32_t *bias) {
    return _mm512_dpbusd_epi32(_mm512_loadu_si512(bias),
                               _mm512_xor_si512(w, _mm512_set1_epi8(-128)), x);
}
#else
// Without VNNI, maddubs's int16 pair sums could saturate with w + 128, so
// |w| is paired with x carrying the sign of w instead. |w|, |x| <= 127 by
// construction, so the pair sums cannot saturate.
inline __m512i dot_i8(__m512i w, __m512i x, const int32_t *) {
    const __m512i sx = _mm512_mask_sub_epi8(x, _mm512_movepi8_mask(w), _mm512_setzero_si512(), x);
    const __m512i pairs = _mm512_maddubs_epi16(_mm512_abs_epi8(w), sx);
    return _mm512_madd_epi16(pairs, _mm512_set1_epi16(1));
}
#endif

ActView act_view(const BlockQ8Act *x, int64_t nb) {
#if defined(__AVX512VNNI__)
    const auto n_bias = static_cast<size_t>((nb + 1) / 2 * 16);
    if (t_act_bias.size() < n_bias) t_act_bias.resize(n_bias);
    for (int64_t k = 0; k < nb; k += 2) {
        const __m512i xq = k + 1 < nb ? load_act_pair(x + k) : load_act_one(x + k);
        const __m512i sums =
            _mm512_dpbusd_epi32(_mm512_setzero_si512(), _mm512_set1_epi8(-128), xq);
        _mm512_storeu_si512(t_act_bias.data() + k / 2 * 16,
                            _mm512_sub_epi32(_mm512_setzero_si512(), sums));
    }
#endif
    return {x, act_scales(x, nb), t_act_bias.data()};
}

// R rows' dot products with quantized activations. Per group of 16 blocks,
// each row's 16 scales are loaded at once and multiplied by the
// activations' scales; per pair of blocks, one 64-byte load of quants and a
// permute that spreads the pair's two scales over the lanes of their
// blocks. An odd last block runs with zero high halves. With `Prefetch`,
// each row is prefetched stream_prefetch_ahead(R, true) bytes ahead (see
// for_lanes).
// The sums are stored by store_sums.
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
    // Lanes 0-7 take scale 2j of the group, lanes 8-15 scale 2j + 1.
    const __m512i first_pair = _mm512_set_epi32(1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m512i two = _mm512_set1_epi32(2);
    for (int64_t g = 0; g < nb; g += 16) {
        const int64_t end = nb - g < 16 ? nb : g + 16;
        const vf xs = vload(a.scales + g);
        vf c[R];
#pragma GCC unroll 8
        for (int i = 0; i < R; ++i)
            c[i] = vmul(_mm512_cvtph_ps(_mm256_maskz_loadu_epi16(first(end - g), rows[i] + 2 * g)),
                        xs);
        __m512i idx = first_pair;
        int64_t k = g;
        for (; k + 2 <= end; k += 2, idx = _mm512_add_epi32(idx, two)) {
            if (Prefetch)
#pragma GCC unroll 8
                for (int i = 0; i < R; ++i)
                    prefetch(reinterpret_cast<const uint8_t *>(q[i] + k * kQ8BlockSize) +
                             stream_prefetch_ahead(R, true));
            const __m512i xq = load_act_pair(a.x + k);
            const int32_t *bias = a.bias + k / 2 * 16;
#pragma GCC unroll 8
            for (int i = 0; i < R; ++i) {
                const __m512i d = dot_i8(_mm512_loadu_si512(q[i] + k * kQ8BlockSize), xq, bias);
                acc[i] = vfma(_mm512_cvtepi32_ps(d), _mm512_permutexvar_ps(idx, c[i]), acc[i]);
            }
        }
        if (k < end) {
            const __m512i xq = load_act_one(a.x + k);
            const int32_t *bias = a.bias + k / 2 * 16;
#pragma GCC unroll 8
            for (int i = 0; i < R; ++i) {
                const __m512i w = _mm512_zextsi256_si512(
                    _mm256_loadu_si256(reinterpret_cast<const __m256i *>(q[i] + k * kQ8BlockSize)));
                acc[i] = vfma(_mm512_cvtepi32_ps(dot_i8(w, xq, bias)),
                              _mm512_permutexvar_ps(idx, c[i]), acc[i]);
            }
        }
    }
    store_sums<R>(acc, y);
}

void matvec_q8_0_avx512(const uint8_t *const *w, size_t stride, int64_t cols, const BlockQ8Act *x,
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
constexpr int kTokenGroup = 4;

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
    const __m512i first_pair = _mm512_set_epi32(1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m512i two = _mm512_set1_epi32(2);
    for (int64_t g = 0; g < nb; g += 16) {
        const int64_t end = nb - g < 16 ? nb : g + 16;
        vf c[R][T];
#pragma GCC unroll 8
        for (int i = 0; i < R; ++i) {
            const vf ws =
                _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(first(end - g), rows[i] + 2 * g));
#pragma GCC unroll 8
            for (int t = 0; t < T; ++t)
                c[i][t] = vmul(ws, vload(a[t].scales + g));
        }
        __m512i idx = first_pair;
        int64_t k = g;
        for (; k + 2 <= end; k += 2, idx = _mm512_add_epi32(idx, two)) {
            if (Prefetch)
#pragma GCC unroll 8
                for (int i = 0; i < R; ++i)
                    prefetch(reinterpret_cast<const uint8_t *>(q[i] + k * kQ8BlockSize) +
                             stream_prefetch_ahead(R, true));
            __m512i xq[T];
#pragma GCC unroll 8
            for (int t = 0; t < T; ++t)
                xq[t] = load_act_pair(a[t].x + k);
#pragma GCC unroll 8
            for (int i = 0; i < R; ++i) {
                const __m512i w = _mm512_loadu_si512(q[i] + k * kQ8BlockSize);
#pragma GCC unroll 8
                for (int t = 0; t < T; ++t) {
                    const __m512i d = dot_i8(w, xq[t], a[t].bias + k / 2 * 16);
                    acc[i][t] =
                        vfma(_mm512_cvtepi32_ps(d), _mm512_permutexvar_ps(idx, c[i][t]), acc[i][t]);
                }
            }
        }
        if (k < end) {
#pragma GCC unroll 8
            for (int i = 0; i < R; ++i) {
                const __m512i w = _mm512_zextsi256_si512(
                    _mm256_loadu_si256(reinterpret_cast<const __m256i *>(q[i] + k * kQ8BlockSize)));
#pragma GCC unroll 8
                for (int t = 0; t < T; ++t) {
                    const __m512i d = dot_i8(w, load_act_one(a[t].x + k), a[t].bias + k / 2 * 16);
                    acc[i][t] =
                        vfma(_mm512_cvtepi32_ps(d), _mm512_permutexvar_ps(idx, c[i][t]), acc[i][t]);
                }
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

// Each token's ActView, kept per thread: scales (and with VNNI biases) of
// token t at t times a stride.
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

void matvec_q8_0_tokens_avx512(const uint8_t *const *w, size_t stride, int64_t cols,
                               const BlockQ8Act *x, int64_t n_tokens, float *const *y, int64_t ldy,
                               int64_t n_lanes, int64_t n_steps) {
    const int64_t nb = cols / kQ8BlockSize;
    const int64_t ns = (nb + 15) / 16 * 16, nbias = (nb + 1) / 2 * 16;
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
#if defined(__AVX512VNNI__)
            for (int64_t b = 0; b < nb; b += 2) {
                const __m512i xq = b + 1 < nb ? load_act_pair(xt + b) : load_act_one(xt + b);
                const __m512i sums =
                    _mm512_dpbusd_epi32(_mm512_setzero_si512(), _mm512_set1_epi8(-128), xq);
                _mm512_storeu_si512(bias + b / 2 * 16,
                                    _mm512_sub_epi32(_mm512_setzero_si512(), sums));
            }
#endif
            a[t] = {xt, sc, bias};
        }
        float *yt[kMaxRowStreams];
        for (int64_t l = 0; l < n_lanes; ++l)
            yt[l] = y[l] + t0 * ldy;
        switch (nt) {
        case 1: q8_tokens_group<1>(w, stride, cols, a, yt, ldy, n_lanes, n_steps); break;
        case 2: q8_tokens_group<2>(w, stride, cols, a, yt, ldy, n_lanes, n_steps); break;
        case 3: q8_tokens_group<3>(w, stride, cols, a, yt, ldy, n_lanes, n_steps); break;
        default: q8_tokens_group<4>(w, stride, cols, a, yt, ldy, n_lanes, n_steps); break;
        }
    }
}

} // namespace

bool LLM_AVX512_FILL(KernelTable &t) {
    fill_common_simd_kernels(t);
    t.matvec_q8_0 = matvec_q8_0_avx512;
    t.matvec_q8_0_tokens = matvec_q8_0_tokens_avx512;
    t.level = LLM_AVX512_LEVEL;
    return true;
}

} // namespace llm

#else

namespace llm {
bool LLM_AVX512_FILL(KernelTable &) {
    return false;
}
} // namespace llm

#endif
