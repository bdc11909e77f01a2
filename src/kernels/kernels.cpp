// The kernel entry points: pick the table of the active SIMD level, split
// the work between threads, and prepare operands (quantized activations,
// fp32 weight panels) that the per-ISA kernels expect.
#include "kernels/kernels.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <vector>

#include "common/error.h"
#include "kernels/kernel_table.h"
#include "kernels/row_stream_trial.h"
#include "kernels/thread_pool.h"

namespace llm {

const KernelTable &kernel_table() {
    static const KernelTable table = [] {
        KernelTable t;
        fill_scalar_kernels(t);
        switch (active_simd_level()) {
        case SimdLevel::Amx:
            if (fill_amx_kernels(t)) break;
            [[fallthrough]];
        case SimdLevel::Avx512Vnni:
            if (fill_avx512vnni_kernels(t)) break;
            [[fallthrough]];
        case SimdLevel::Avx512:
            if (fill_avx512_kernels(t)) break;
            [[fallthrough]];
        case SimdLevel::Avx2Vnni:
            if (fill_avx2vnni_kernels(t)) break;
            [[fallthrough]];
        case SimdLevel::Avx2: fill_avx2_kernels(t); break;
        case SimdLevel::NeonDot:
            if (fill_neondot_kernels(t)) break;
            [[fallthrough]];
        case SimdLevel::Neon: fill_neon_kernels(t); break;
        case SimdLevel::Scalar: break;
        }
        return t;
    }();
    return table;
}

namespace {

// Rows of a matrix widened to fp32 at a time in the batched path (a
// multiple of every ISA's GEMM tile rows), and the threads' grain.
constexpr int64_t kPanelRows = 24;
// The threads' grain in a decode step, in rows (matvec_group).
constexpr int64_t kMatvecGrainRows = 32;
// Rows per work unit of matvec_tokens: read from memory for the first
// token, from L2 for the others (64 rows of Qwen2.5-0.5B's down projection
// in Q8_0: 330 KB).
constexpr int64_t kTokensBlockRows = 64;
// Matrices a matvec_tokens call takes at most.
constexpr int kMaxGroupMatrices = 4;
// Packed activations: token counts rounded up to this (the widest vector).
constexpr int64_t kPackLanes = 16;

// Scratch that lives as long as its thread (pool workers are persistent).
thread_local std::vector<float> t_panel;
thread_local std::vector<BlockQ8Act> t_xq;
thread_local std::vector<float> t_xsum;
thread_local std::vector<float> t_xt;
thread_local std::vector<uint16_t> t_xb;
thread_local std::vector<uint8_t> t_x8;
thread_local std::vector<uint8_t> t_form;
thread_local std::vector<BlockQ8Act> t_act_blocks;
thread_local std::vector<float> t_tile_scratch;

// n values of `v`, starting on a 64-byte boundary: packed activations are
// read a whole vector (or tile row) per cache line, and a vector straddling
// two lines halves the GEMM's speed.
template <typename T> T *aligned(std::vector<T> &v, size_t n) {
    v.resize(n + 64 / sizeof(T));
    const uintptr_t p = reinterpret_cast<uintptr_t>(v.data());
    return reinterpret_cast<T *>((p + 63) / 64 * 64);
}

// xt[k * ld + t] = x[t * cols + k], zero for t >= n: the GEMM kernels read
// one k for a whole vector of tokens at a time. Done in 16 x 16 blocks (one
// cache line of each of 16 token rows in, 16 lines out) and split by k over
// the pool: done naively on one thread, the 4864-long input of a down
// projection took a sixth as long as the product itself, the other thread
// idle meanwhile.
void pack_transposed(const float *x, int64_t n, int64_t cols, float *xt, int64_t ld,
                     ThreadPool *pool) {
    constexpr int64_t kBlock = 16;
    auto pack = [&](int64_t k0, int64_t k1, int) {
        for (int64_t kb = k0; kb < k1; kb += kBlock) {
            const int64_t nk = std::min(kBlock, k1 - kb);
            for (int64_t tb = 0; tb < ld; tb += kBlock) {
                float block[kBlock][kBlock] = {}; // [t][k]
                for (int64_t t = 0; t < kBlock && tb + t < n; ++t) {
                    const float *src = x + (tb + t) * cols + kb;
                    if (nk == kBlock) // a fixed size: inlined, not a libc call per line
                        std::memcpy(block[t], src, sizeof(block[t]));
                    else
                        std::memcpy(block[t], src, sizeof(float) * nk);
                }
                for (int64_t k = 0; k < nk; ++k)
                    for (int64_t t = 0; t < kBlock; ++t)
                        xt[(kb + k) * ld + tb + t] = block[t][k];
            }
        }
    };
    if (pool)
        pool->parallel_for(cols, kBlock, pack);
    else
        pack(0, cols, 0);
}

// x (n tokens x cols) quantized per token and 32-value block, as for a
// decode step, into gemm_q8_0's panels (kernel_table.h), a panel of 16
// tokens per job.
void pack_act_q8(const KernelTable &k, const float *x, int64_t n, int64_t cols, uint8_t *out,
                 ThreadPool *pool) {
    const int64_t nb = cols / kQ8BlockSize, panel_bytes = act_q8_panel_bytes(cols);
    auto pack = [&](int64_t t0, int64_t t1, int) {
        t_act_blocks.resize(static_cast<size_t>(nb));
        BlockQ8Act *blocks = t_act_blocks.data();
        for (int64_t p0 = t0; p0 < t1; p0 += kQ8PanelTokens) {
            uint8_t *panel = out + p0 / kQ8PanelTokens * panel_bytes;
            std::memset(panel, 0, static_cast<size_t>(panel_bytes));
            for (int64_t i = 0; i < kQ8PanelTokens && p0 + i < n; ++i) {
                k.quantize_act_q8(x + (p0 + i) * cols, blocks, cols);
                for (int64_t b = 0; b < nb; ++b) {
                    uint8_t *blk = panel + b * kQ8PanelBlockBytes;
                    const BlockQ8Act &a = blocks[b];
                    int32_t sum = 0;
                    for (int j = 0; j < kQ8BlockSize; ++j)
                        sum += a.q[j];
                    for (int g = 0; g < kQ8BlockSize / 4; ++g) // 4 quants per group, as one word
                        std::memcpy(blk + 128 + 64 * g + 4 * i, a.q + 4 * g, 4);
                    const int32_t corr = -128 * sum;
                    std::memcpy(blk + 4 * i, &corr, 4);
                    std::memcpy(blk + 64 + 4 * i, &a.scale, 4);
                }
            }
        }
    };
    const int64_t padded = round_up(n, kQ8PanelTokens);
    if (pool)
        pool->parallel_for(padded, kQ8PanelTokens, pack);
    else
        pack(0, padded, 0);
}

MatvecFn matvec_for(const KernelTable &k, DType t) {
    switch (t) {
    case DType::F32: return k.matvec_f32;
    case DType::BF16: return k.matvec_bf16;
    case DType::F16: return k.matvec_f16;
    default: return nullptr;
    }
}

// The block types' decode kernels (null for the others).
MatvecBlocksFn matvec_blocks_for(const KernelTable &k, DType t) {
    switch (t) {
    case DType::Q4_0: return k.matvec_q4_0;
    case DType::Q4_1: return k.matvec_q4_1;
    case DType::Q5_0: return k.matvec_q5_0;
    case DType::Q5_1: return k.matvec_q5_1;
    case DType::Q4_K: return k.matvec_q4_k;
    case DType::Q5_K: return k.matvec_q5_k;
    case DType::Q6_K: return k.matvec_q6_k;
    default: return nullptr;
    }
}

// Weights that meet quantized activations in a decode step.
bool takes_quantized_x(DType t) {
    return t != DType::F32 && t != DType::BF16 && t != DType::F16;
}

WidenFn widen_for(const KernelTable &k, DType t) {
    switch (t) {
    case DType::BF16: return k.widen_bf16;
    case DType::F16: return k.widen_f16;
    case DType::Q8_0: return k.widen_q8_0;
    case DType::Q4_0: return k.widen_q4_0;
    case DType::Q4_1: return k.widen_q4_1;
    case DType::Q5_0: return k.widen_q5_0;
    case DType::Q5_1: return k.widen_q5_1;
    case DType::Q4_K: return k.widen_q4_k;
    case DType::Q5_K: return k.widen_q5_k;
    case DType::Q6_K: return k.widen_q6_k;
    case DType::F32: break;
    }
    return nullptr;
}

// A decode step's products (one token). The group's rows, matrix after
// matrix, are one list cut into S = matvec_row_streams() lanes of rows / S,
// and the pool's indices are steps: index k computes row k of each lane; the
// last rows % S rows follow as single-row indices. A thread walks its part
// of the steps in order, so its S streams run on from one chunk to the next
// (for_lanes in simd_kernels.inc); only a steal starts new ones. With the
// rows themselves as indices, every chunk started S new streams: on the
// Zen 5 VM, two threads decoded stories110M in Q8_0 at 70% of the
// bandwidth probe's speed instead of 81%. A lane that reaches the end of a
// matrix runs on into the next one, which restarts that one stream: cut
// matrix by matrix instead, q, k and v started 3 S streams, and on
// Qwen2.5-0.5B (k and v of 128 rows) 2 S of them were 32 rows long.
void matvec_group(const KernelTable &k, const MatmulOut *outs, int count, const float *x,
                  const BlockQ8Act *xq, const float *xsum, ThreadPool *pool) {
    constexpr int kMaxGroup = 4;
    if (count > kMaxGroup) fail(LLM_ERR_INTERNAL, "matvec_group: ", count, " matrices");
    const DType type = outs[0].w->type;
    for (int i = 1; i < count; ++i)
        if (outs[i].w->type != type) { // rows of other sizes: one matrix at a time
            for (int j = 0; j < count; ++j)
                matvec_group(k, outs + j, 1, x, xq, xsum, pool);
            return;
        }
    int64_t start[kMaxGroup + 1] = {0}; // matrix i holds rows start[i] .. start[i + 1]
    for (int i = 0; i < count; ++i)
        start[i + 1] = start[i] + outs[i].w->rows;
    const int S = matvec_row_streams();
    const int64_t rows = start[count], q = rows / S; // q steps, then rows - S q single rows
    const size_t stride = outs[0].w->row_bytes();
    // Row r of the list: its weights and output, and how many rows from r
    // on stay in the same matrix.
    auto locate = [&](int64_t r, const uint8_t *&w, float *&y) {
        int i = 0;
        while (r >= start[i + 1])
            ++i;
        w = outs[i].w->row(r - start[i]);
        y = outs[i].y + (r - start[i]);
        return start[i + 1] - r;
    };
    auto lanes = [&](const uint8_t *const *lw, float *const *ly, int64_t n_lanes, int64_t n_steps) {
        if (type == DType::Q8_0)
            k.matvec_q8_0(lw, stride, outs[0].w->cols, xq, ly, n_lanes, n_steps);
        else if (const MatvecBlocksFn blocks = matvec_blocks_for(k, type))
            blocks(lw, stride, outs[0].w->cols, xq, xsum, ly, n_lanes, n_steps);
        else
            matvec_for(k, type)(lw, stride, outs[0].w->cols, x, ly, n_lanes, n_steps);
    };
    auto work = [&](int64_t begin, int64_t end, int) {
        // Steps [begin, end) of every lane, cut where a lane changes matrix.
        for (int64_t step = begin, last = std::min(end, q); step < last;) {
            const uint8_t *lw[kMaxRowStreams];
            float *ly[kMaxRowStreams];
            int64_t n = last - step;
            for (int s = 0; s < S; ++s)
                n = std::min(n, locate(s * q + step, lw[s], ly[s]));
            lanes(lw, ly, S, n);
            step += n;
        }
        // The single rows after the lanes, as one lane per matrix they touch.
        for (int64_t r = S * q + std::max(begin, q) - q, last = S * q + end - q; r < last;) {
            const uint8_t *w;
            float *y;
            const int64_t n = std::min(last - r, locate(r, w, y));
            lanes(&w, &y, 1, n);
            r += n;
        }
    };
    const int64_t total = q + rows - S * q;
    if (pool)
        pool->parallel_for(total, std::max<int64_t>(1, kMatvecGrainRows / S), work);
    else
        work(0, total, 0);
}

// Y[t][r0 .. r1) for every token: fp32 rows are used in place, others are
// widened a panel at a time (the widening is paid once per panel and shared
// by all n_tokens).
void gemm_rows(const KernelTable &k, const Matrix &w, const float *xt, int64_t ldxt,
               int64_t n_tokens, float *y, int64_t r0, int64_t r1) {
    const int64_t cols = w.cols;
    if (w.type == DType::F32) { // all rows in one call: the kernel blocks k across them
        k.gemm_f32(reinterpret_cast<const float *>(w.row(r0)), cols, r1 - r0, xt, ldxt, n_tokens,
                   cols, y + r0, w.rows);
        return;
    }
    for (int64_t r = r0; r < r1; r += kPanelRows) {
        const int64_t nr = std::min(kPanelRows, r1 - r);
        t_panel.resize(static_cast<size_t>(kPanelRows * cols));
        widen_for(k, w.type)(w.row(r), w.row_bytes(), cols, t_panel.data(), nr);
        k.gemm_f32(t_panel.data(), cols, nr, xt, ldxt, n_tokens, cols, y + r, w.rows);
    }
}

// How a batch meets each matrix: bf16 weights on the AMX tiles, Q8_0 weights
// in int8, and the block types with an int8 form (quant_blocks.h) in int8 as
// that form, a panel of rows at a time (Q4_0's unpacked by the ISA's own
// kernel), where the table has those kernels; everything else as fp32 GEMM
// over transposed activations.
enum class BatchPath { F32, Tiles, Int8, Int8Q4, Int8Form };
BatchPath batch_path(const KernelTable &k, const Matrix &w) {
    if (k.gemm_bf16x3 && w.type == DType::BF16 && w.cols % 32 == 0) return BatchPath::Tiles;
    if (k.gemm_q8_0 && w.type == DType::Q8_0) return BatchPath::Int8;
    if (k.gemm_q4_0 && w.type == DType::Q4_0) return BatchPath::Int8Q4;
    if (k.gemm_q8_scaled && has_int8_form(w.type)) return BatchPath::Int8Form;
    return BatchPath::F32;
}

// Y[t][r0 .. r1) from rows of a block type, converted to their int8 form a
// panel at a time (paid once per panel, shared by all n_tokens).
void gemm_rows_int8_form(const KernelTable &k, const Matrix &w, const uint8_t *x8, int64_t n_tokens,
                         float *y, int64_t r0, int64_t r1) {
    const int64_t cols = w.cols;
    const size_t form_bytes = static_cast<size_t>(int8_form_row_bytes(cols));
    t_form.resize(static_cast<size_t>(kPanelRows) * form_bytes);
    for (int64_t r = r0; r < r1; r += kPanelRows) {
        const int64_t nr = std::min(kPanelRows, r1 - r);
        for (int64_t i = 0; i < nr; ++i)
            int8_form_row(w.type, w.row(r + i), t_form.data() + i * form_bytes, cols);
        k.gemm_q8_scaled(t_form.data(), form_bytes, nr, x8, n_tokens, cols, y + r, w.rows);
    }
}

} // namespace

void matmul_group(const MatmulOut *outs, int count, const float *x, int64_t n_tokens,
                  ThreadPool *pool) {
    const KernelTable &k = kernel_table();
    const int64_t cols = outs[0].w->cols;
    int64_t total = 0;
    bool any_q8 = false;
    for (int i = 0; i < count; ++i) {
        if (outs[i].w->cols != cols) fail(LLM_ERR_INTERNAL, "matmul_group: inputs differ");
        total += outs[i].w->rows;
        any_q8 = any_q8 || takes_quantized_x(outs[i].w->type);
    }
    if (n_tokens == 1) {
        const BlockQ8Act *xq = nullptr;
        const float *xsum = nullptr;
        if (any_q8) {
            const int64_t nb = cols / kQ8BlockSize;
            t_xq.resize(static_cast<size_t>(nb));
            k.quantize_act_q8(x, t_xq.data(), cols);
            xq = t_xq.data();
            t_xsum.resize(static_cast<size_t>(nb));
            for (int64_t b = 0; b < nb; ++b) {
                int32_t sum = 0;
                for (int j = 0; j < kQ8BlockSize; ++j)
                    sum += xq[b].q[j];
                t_xsum[static_cast<size_t>(b)] = xq[b].scale * static_cast<float>(sum);
            }
            xsum = t_xsum.data();
        }
        if (!row_stream_trial_running()) {
            matvec_group(k, outs, count, x, xq, xsum, pool);
            return;
        }
        int64_t bytes = 0;
        for (int i = 0; i < count; ++i)
            bytes += static_cast<int64_t>(outs[i].w->bytes());
        const int streams = matvec_row_streams();
        const auto start = std::chrono::steady_clock::now();
        matvec_group(k, outs, count, x, xq, xsum, pool);
        const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                            std::chrono::steady_clock::now() - start)
                            .count();
        row_stream_trial_record(streams, bytes, static_cast<int64_t>(ns));
        return;
    }
    const int64_t ldxt = round_up(n_tokens, kPackLanes);
    float *xt = nullptr;
    uint16_t *xb = nullptr;
    uint8_t *x8 = nullptr;
    int64_t grain = kPanelRows;
    for (int i = 0; i < count; ++i) {
        const BatchPath path = batch_path(k, *outs[i].w);
        if ((path == BatchPath::Int8 || path == BatchPath::Int8Q4) && k.level == SimdLevel::Amx)
            grain = 32; // whole 16-row tiles of the AMX-INT8 GEMM
        if (path == BatchPath::F32 && !xt) {
            xt = aligned(t_xt, static_cast<size_t>(ldxt * cols));
            pack_transposed(x, n_tokens, cols, xt, ldxt, pool);
        } else if (path == BatchPath::Tiles && !xb) {
            xb = aligned(t_xb, static_cast<size_t>(act_bf16x3_elems(n_tokens, cols)));
            k.pack_act_bf16x3(x, n_tokens, cols, xb);
            grain = 32; // whole pairs of 16-row tiles
        } else if ((path == BatchPath::Int8 || path == BatchPath::Int8Q4 ||
                    path == BatchPath::Int8Form) &&
                   !x8) {
            x8 = aligned(t_x8, static_cast<size_t>(act_q8_bytes(n_tokens, cols)));
            pack_act_q8(k, x, n_tokens, cols, x8, pool);
        }
    }
    // [begin, end) of the concatenated rows of all matrices, one piece per
    // matrix it overlaps.
    auto work = [&](int64_t begin, int64_t end, int) {
        int64_t base = 0;
        for (int i = 0; i < count && begin < end; ++i) {
            const Matrix &w = *outs[i].w;
            const int64_t r0 = std::max(begin, base) - base;
            const int64_t r1 = std::min(end, base + w.rows) - base;
            if (r0 < r1) {
                const BatchPath path = batch_path(k, w);
                if (path == BatchPath::Int8)
                    k.gemm_q8_0(w.row(r0), w.row_bytes(), r1 - r0, x8, n_tokens, cols,
                                outs[i].y + r0, w.rows);
                else if (path == BatchPath::Int8Q4)
                    k.gemm_q4_0(w.row(r0), w.row_bytes(), r1 - r0, x8, n_tokens, cols,
                                outs[i].y + r0, w.rows,
                                aligned(t_form, gemm_q4_0_scratch_bytes(cols)));
                else if (path == BatchPath::Int8Form)
                    gemm_rows_int8_form(k, w, x8, n_tokens, outs[i].y, r0, r1);
                else if (path == BatchPath::Tiles)
                    k.gemm_bf16x3(
                        w.row(r0), w.row_bytes(), r1 - r0, xb, n_tokens, cols, outs[i].y + r0,
                        w.rows,
                        aligned(t_tile_scratch, gemm_bf16x3_scratch_bytes(n_tokens, cols) / 4));
                else
                    gemm_rows(k, w, xt, ldxt, n_tokens, outs[i].y, r0, r1);
            }
            base += w.rows;
        }
    };
    if (pool)
        pool->parallel_for(total, grain, work);
    else
        work(0, total, 0);
}

// Measured on Sapphire Rapids (2 threads, Qwen2.5-0.5B shapes, CPU time per
// token of llm-bench --parallel N): Q8_0 in int8 costs as much at 4 tokens
// and 30% less at 8; the int8 form (K-quants, Q5_0...), converted per call,
// is still 10% dearer at 16. The others are set high until measured; the
// scalar level, the reference, keeps to the decode kernels.
int64_t batch_step_min_tokens(const Matrix &w) {
    const KernelTable &k = kernel_table();
    if (k.level == SimdLevel::Scalar) return kNeverBatchKernels;
    switch (batch_path(k, w)) {
    case BatchPath::Int8: return 4;
    case BatchPath::Int8Q4: return 8;
    case BatchPath::Int8Form: return 20;
    case BatchPath::Tiles: return 16;
    case BatchPath::F32: return w.type == DType::F32 ? 8 : 24; // others widened per call
    }
    return kNeverBatchKernels;
}

void matmul(const Matrix &w, const float *x, int64_t n_tokens, float *y, ThreadPool *pool) {
    const MatmulOut out{&w, y};
    matmul_group(&out, 1, x, n_tokens, pool);
}

void matvec_tokens(const MatmulOut *outs, int count, const float *x, int64_t n_tokens,
                   ThreadPool *pool) {
    const KernelTable &k = kernel_table();
    const int64_t cols = outs[0].w->cols, nb = cols / kQ8BlockSize;
    bool any_q8 = false;
    for (int i = 0; i < count; ++i) {
        if (outs[i].w->cols != cols) fail(LLM_ERR_INTERNAL, "matvec_tokens: inputs differ");
        any_q8 = any_q8 || takes_quantized_x(outs[i].w->type);
    }
    // Each token's activations quantized as matmul_group quantizes one.
    if (any_q8) {
        t_xq.resize(static_cast<size_t>(n_tokens * nb));
        t_xsum.resize(static_cast<size_t>(n_tokens * nb));
        for (int64_t t = 0; t < n_tokens; ++t) {
            BlockQ8Act *xq = &t_xq[static_cast<size_t>(t * nb)];
            k.quantize_act_q8(x + t * cols, xq, cols);
            for (int64_t b = 0; b < nb; ++b) {
                int32_t sum = 0;
                for (int j = 0; j < kQ8BlockSize; ++j)
                    sum += xq[b].q[j];
                t_xsum[static_cast<size_t>(t * nb + b)] = xq[b].scale * static_cast<float>(sum);
            }
        }
    }
    const BlockQ8Act *xq_all = any_q8 ? t_xq.data() : nullptr;
    const float *xsum_all = any_q8 ? t_xsum.data() : nullptr;
    int64_t first_block[kMaxGroupMatrices + 1] = {0};
    if (count > kMaxGroupMatrices) fail(LLM_ERR_INTERNAL, "matvec_tokens: ", count, " matrices");
    for (int i = 0; i < count; ++i)
        first_block[i + 1] =
            first_block[i] + (outs[i].w->rows + kTokensBlockRows - 1) / kTokensBlockRows;
    const int S = matvec_row_streams();
    auto work = [&](int64_t begin, int64_t end, int) {
        int i = 0;
        for (int64_t blk = begin; blk < end; ++blk) {
            while (blk >= first_block[i + 1])
                ++i;
            const Matrix &w = *outs[i].w;
            const int64_t r0 = (blk - first_block[i]) * kTokensBlockRows;
            const int64_t rows = std::min(kTokensBlockRows, w.rows - r0);
            const size_t stride = w.row_bytes();
            // A whole block as S lanes; a short one (a matrix's last) row by row.
            const int64_t lanes = rows == kTokensBlockRows ? S : 1, steps = rows / lanes;
            if (w.type == DType::Q8_0 && k.matvec_q8_0_tokens) {
                // All tokens per weight block, bit-identical to the loop below.
                const uint8_t *lw[kMaxRowStreams];
                float *ly[kMaxRowStreams];
                for (int64_t l = 0; l < lanes; ++l) {
                    lw[l] = w.row(r0 + l * steps);
                    ly[l] = outs[i].y + r0 + l * steps;
                }
                k.matvec_q8_0_tokens(lw, stride, cols, xq_all, n_tokens, ly, w.rows, lanes, steps);
                continue;
            }
            for (int64_t t = 0; t < n_tokens; ++t) {
                const uint8_t *lw[kMaxRowStreams];
                float *ly[kMaxRowStreams];
                for (int64_t l = 0; l < lanes; ++l) {
                    lw[l] = w.row(r0 + l * steps);
                    ly[l] = outs[i].y + t * w.rows + r0 + l * steps;
                }
                const BlockQ8Act *xq = xq_all ? xq_all + t * nb : nullptr;
                const float *xsum = xsum_all ? xsum_all + t * nb : nullptr;
                if (w.type == DType::Q8_0)
                    k.matvec_q8_0(lw, stride, cols, xq, ly, lanes, steps);
                else if (const MatvecBlocksFn f = matvec_blocks_for(k, w.type))
                    f(lw, stride, cols, xq, xsum, ly, lanes, steps);
                else
                    matvec_for(k, w.type)(lw, stride, cols, x + t * cols, ly, lanes, steps);
            }
        }
    };
    const int64_t blocks = first_block[count];
    if (pool)
        pool->parallel_for(blocks, 1, work);
    else
        work(0, blocks, 0);
}

void matrix_row_f32(const Matrix &m, int64_t index, float *out) {
    if (m.type == DType::F32)
        std::memcpy(out, m.row(index), static_cast<size_t>(m.cols) * 4);
    else
        widen_for(kernel_table(), m.type)(m.row(index), m.row_bytes(), m.cols, out, 1);
}

void rmsnorm(float *out, const float *x, const float *weight, int64_t n, float eps) {
    kernel_table().rmsnorm(out, x, weight, n, eps);
}

void softmax(float *x, int64_t n) {
    kernel_table().softmax(x, n);
}

void silu_mul(float *a, const float *b, int64_t n) {
    kernel_table().silu_mul(a, b, n);
}

void gelu_mul(float *a, const float *b, int64_t n) {
    kernel_table().gelu_mul(a, b, n);
}

void narrow_f16(const float *x, uint8_t *out, int64_t n) {
    kernel_table().narrow_f16(x, out, n);
}

void add_inplace(float *a, const float *b, int64_t n) {
    kernel_table().add(a, b, n);
}

float max_f32(const float *x, int64_t n) {
    return kernel_table().max(x, n);
}

float dot_f32(const float *a, const float *b, int64_t n) {
    return kernel_table().dot(a, b, n);
}

void attention_heads(DType kv_type, const float *q, const void *k, const void *v,
                     int64_t head_stride, int64_t n_pos, int64_t head_dim, int64_t h0,
                     int64_t n_heads, int64_t group, float scale, float *scores, float *out,
                     int64_t first) {
    const KernelTable &t = kernel_table();
    if (kv_type != DType::F32 && kv_type != DType::F16)
        fail(LLM_ERR_INTERNAL, "attention: no kernel for a ", dtype_name(kv_type), " KV cache");
    // Position first of every head is where position 0 would be.
    const size_t skip = static_cast<size_t>(first * head_dim) * (kv_type == DType::F16 ? 2 : 4);
    (kv_type == DType::F16 ? t.attention_f16 : t.attention_f32)(
        q, static_cast<const uint8_t *>(k) + skip, static_cast<const uint8_t *>(v) + skip,
        head_stride, n_pos, head_dim, h0, n_heads, group, scale, scores, out);
}

namespace {

// Batched attention: query rows per job, and key positions per block (a
// block's scores, kAttnRows x kAttnKeys fp32, and its keys and values stay
// in L2).
constexpr int64_t kAttnRows = 64;
constexpr int64_t kAttnKeys = 256;

struct AttentionScratch {
    std::vector<float> qt, keys, values, scores, out_t, block_out_t, m, l, c;
    std::vector<int64_t> first, visible;
};
thread_local AttentionScratch t_attention;

} // namespace

// The query rows of KV head j are row i = t * group + g for token t and its
// query head j * group + g. A job takes kAttnRows of them and walks the
// positions they see (from the window's start for its first row, with a
// window) in blocks of kAttnKeys, each block two GEMMs with the
// cache rows read in place (fp16 ones widened first):
//   scores S = Q K^T: the block's keys as the weight rows, the job's queries
//     (scaled, transposed: [d][row]) as the packed activations, giving
//     S[row][position];
//   the online softmax step on S's rows;
//   O^T += P V, transposed: the rows of P as the weight rows, the block's
//     values ([position][d], padded to 16 values) as the packed
//     activations, giving O^T[d][row], rescaled by c per row before the
//     block is added.
void attention_batch(DType kv_type, const float *q, const void *k, const void *v,
                     int64_t head_stride, int64_t n_tokens, int32_t pos0, int64_t head_dim,
                     int64_t n_heads, int64_t n_kv_heads, float scale, float *out, ThreadPool *pool,
                     int64_t window) {
    const KernelTable &kt = kernel_table();
    if (kv_type != DType::F32 && kv_type != DType::F16)
        fail(LLM_ERR_INTERNAL, "attention: no kernel for a ", dtype_name(kv_type), " KV cache");
    const int64_t hd = head_dim, hdp = round_up(hd, 16), group = n_heads / n_kv_heads;
    const int64_t q_dim = n_heads * hd;
    const int64_t rows = n_tokens * group, blocks = (rows + kAttnRows - 1) / kAttnRows;
    const size_t value_bytes = kv_type == DType::F32 ? 4 : 2;
    // The keys in place where they are fp32, the values where their rows are
    // also whole vectors; else copied (widened, padded) a block at a time.
    const bool keys_in_place = kv_type == DType::F32;
    const bool values_in_place = keys_in_place && hd == hdp;
    auto job = [&](int64_t j0, int64_t j1, int) {
        AttentionScratch &a = t_attention;
        for (int64_t jb = j0; jb < j1; ++jb) {
            const int64_t kv_head = jb / blocks, r0 = jb % blocks * kAttnRows;
            const int64_t nr = std::min(kAttnRows, rows - r0), ld = round_up(nr, 16);
            a.qt.assign(static_cast<size_t>(hd * ld), 0.0f);
            a.scores.resize(static_cast<size_t>(nr * kAttnKeys));
            a.out_t.assign(static_cast<size_t>(hd * ld), 0.0f);
            a.block_out_t.resize(static_cast<size_t>(hd * ld));
            a.m.assign(static_cast<size_t>(nr), kNoScore);
            a.l.assign(static_cast<size_t>(nr), 0.0f);
            a.c.resize(static_cast<size_t>(nr));
            a.first.resize(static_cast<size_t>(nr));
            a.visible.resize(static_cast<size_t>(nr));
            auto query = [&](int64_t i) { // offset of row r0 + i in q and out
                const int64_t r = r0 + i;
                return r / group * q_dim + (kv_head * group + r % group) * hd;
            };
            for (int64_t i = 0; i < nr; ++i) {
                const float *src = q + query(i);
                for (int64_t d = 0; d < hd; ++d)
                    a.qt[static_cast<size_t>(d * ld + i)] = src[d] * scale;
            }
            const int64_t n_pos = pos0 + (r0 + nr - 1) / group + 1;
            // Row i sees positions lo(i) .. pos0 + (r0 + i) / group.
            auto lo = [&](int64_t i) {
                return window > 0 ? std::max<int64_t>(0, pos0 + (r0 + i) / group - window + 1) : 0;
            };
            const uint8_t *kb =
                static_cast<const uint8_t *>(k) + kv_head * head_stride * value_bytes;
            const uint8_t *vb =
                static_cast<const uint8_t *>(v) + kv_head * head_stride * value_bytes;
            for (int64_t p0 = lo(0); p0 < n_pos; p0 += kAttnKeys) {
                const int64_t np = std::min(kAttnKeys, n_pos - p0);
                const uint8_t *kp = kb + p0 * hd * value_bytes, *vp = vb + p0 * hd * value_bytes;
                const float *keys = reinterpret_cast<const float *>(kp);
                if (!keys_in_place) {
                    a.keys.resize(static_cast<size_t>(np * hd));
                    kt.widen_f16(kp, static_cast<size_t>(hd) * 2, hd, a.keys.data(), np);
                    keys = a.keys.data();
                }
                const float *values = reinterpret_cast<const float *>(vp);
                if (!values_in_place) {
                    a.values.assign(static_cast<size_t>(np * hdp), 0.0f);
                    for (int64_t p = 0; p < np; ++p) {
                        float *dst = a.values.data() + p * hdp;
                        if (kv_type == DType::F32)
                            std::memcpy(dst, vp + p * hd * 4, static_cast<size_t>(hd) * 4);
                        else
                            kt.widen_f16(vp + p * hd * 2, 0, hd, dst, 1);
                    }
                    values = a.values.data();
                }
                kt.gemm_f32(keys, hd, np, a.qt.data(), ld, nr, hd, a.scores.data(), kAttnKeys);
                for (int64_t i = 0; i < nr; ++i) {
                    const int64_t seen = pos0 + (r0 + i) / group + 1 - p0; // positions < p0 + seen
                    a.visible[static_cast<size_t>(i)] = std::clamp<int64_t>(seen, 0, np);
                    a.first[static_cast<size_t>(i)] = std::clamp<int64_t>(lo(i) - p0, 0, np);
                }
                kt.softmax_block(a.scores.data(), kAttnKeys, nr, np, a.first.data(),
                                 a.visible.data(), a.m.data(), a.l.data(), a.c.data());
                kt.gemm_f32(a.scores.data(), kAttnKeys, nr, values, hdp, hd, np,
                            a.block_out_t.data(), ld);
                for (int64_t d = 0; d < hd; ++d)
                    for (int64_t i = 0; i < nr; ++i) {
                        float &o = a.out_t[static_cast<size_t>(d * ld + i)];
                        o = o * a.c[static_cast<size_t>(i)] +
                            a.block_out_t[static_cast<size_t>(d * ld + i)];
                    }
            }
            for (int64_t i = 0; i < nr; ++i) {
                float *dst = out + query(i);
                const float inv = 1.0f / a.l[static_cast<size_t>(i)];
                for (int64_t d = 0; d < hd; ++d)
                    dst[d] = a.out_t[static_cast<size_t>(d * ld + i)] * inv;
            }
        }
    };
    if (pool)
        pool->parallel_for(n_kv_heads * blocks, 1, job);
    else
        job(0, n_kv_heads * blocks, 0);
}

void rope_angles(float *cos_sin, int64_t head_dim, int32_t pos, float theta,
                 const float *divisors) {
    for (int64_t i = 0; i < head_dim / 2; ++i) {
        float freq =
            1.0f / std::pow(theta, static_cast<float>(2 * i) / static_cast<float>(head_dim));
        if (divisors) freq /= divisors[i];
        float val = static_cast<float>(pos) * freq;
        cos_sin[2 * i] = std::cos(val);
        cos_sin[2 * i + 1] = std::sin(val);
    }
}

void rope(float *x, int64_t n_heads, int64_t head_dim, const float *cos_sin, bool interleaved) {
    const int64_t half = head_dim / 2;
    for (int64_t h = 0; h < n_heads; ++h) {
        float *v = x + h * head_dim;
        for (int64_t i = 0; i < half; ++i) {
            float c = cos_sin[2 * i], s = cos_sin[2 * i + 1];
            float *a = interleaved ? &v[2 * i] : &v[i];
            float *b = interleaved ? &v[2 * i + 1] : &v[i + half];
            float a0 = *a, b0 = *b;
            *a = a0 * c - b0 * s;
            *b = a0 * s + b0 * c;
        }
    }
}

} // namespace llm
