// The numeric kernels the transformer is built from. They know nothing of
// models: only vectors, matrices and the thread pool that splits the work.
// Each call goes through the kernel table of the active SIMD level
// (kernel_table.h): scalar reference, AVX2, AVX-512 or NEON.
#pragma once

#include <cstdint>

#include "model/tensor.h"

namespace llm {

class ThreadPool;

// One product of a matmul_group: y = W x for every token.
struct MatmulOut {
    const Matrix *w;
    float *y; // n_tokens x w->rows, row-major
};

// Y[t] = W * X[t] for t < n_tokens. X is n_tokens x W.cols, Y is
// n_tokens x W.rows, both fp32 row-major. n_tokens == 1 is the decode
// matrix-vector product (Q8_0 weights then meet Q8-quantized activations);
// larger n is batched prefill, computed as register-tiled GEMM over fp32
// copies of small panels of W (Q8_0 on AVX-512 VNNI: int8 GEMM against
// activations quantized per token, as in decode; bf16 on AMX: tile GEMM).
void matmul(const Matrix &w, const float *x, int64_t n_tokens, float *y, ThreadPool *pool);

// Several matrices with the same input (Q, K and V; gate and up) in one
// pass of the pool: their rows are split between the threads together.
void matmul_group(const MatmulOut *outs, int count, const float *x, int64_t n_tokens,
                  ThreadPool *pool);

// The same products for tokens of different sequences decoded together
// (engine/batch_decode.h): each token's row exactly as matmul_group computes
// a single token (matrix x vector, the same kernels and rounding), a block
// of weight rows at a time for all tokens, so the weights are read from
// memory once per call. For the few tokens of a decode step, where the
// batch kernels would spend their width on padding.
void matvec_tokens(const MatmulOut *outs, int count, const float *x, int64_t n_tokens,
                   ThreadPool *pool);

// The fewest tokens of a decode step of several sequences for which its
// products with `w` cost less through matmul_group's batch kernels than
// through matvec_tokens (then computed as a prompt's, not as a lone decode's,
// within float rounding of it). A fixed rule per weight type's batch path
// and SIMD level, measured, never timed at run time: the numbers must not
// depend on timing. kNeverBatchKernels where they never win.
constexpr int64_t kNeverBatchKernels = INT64_MAX;
int64_t batch_step_min_tokens(const Matrix &w);

// out = row `index` of `m`, widened to fp32 (embedding lookup).
void matrix_row_f32(const Matrix &m, int64_t index, float *out);

// out = x / sqrt(mean(x^2) + eps) * weight   (out may equal x)
void rmsnorm(float *out, const float *x, const float *weight, int64_t n, float eps);

// In-place numerically stable softmax.
void softmax(float *x, int64_t n);

// a[i] = silu(a[i]) * b[i]   (SwiGLU's gate)
void silu_mul(float *a, const float *b, int64_t n);

// a[i] = gelu_tanh(a[i]) * b[i], gelu_tanh(x) = 0.5 x (1 + tanh(sqrt(2/pi)
// (x + 0.044715 x^3)))   (Gemma's GELU-gated FFN)
void gelu_mul(float *a, const float *b, int64_t n);

// a[i] += b[i]
void add_inplace(float *a, const float *b, int64_t n);

// out = n values of x as fp16 bytes, clamped to +-65504 (f32_to_f16_clamped).
void narrow_f16(const float *x, uint8_t *out, int64_t n);

// y[i] += bias[i]
inline void add_bias(float *y, const float *bias, int64_t n) {
    add_inplace(y, bias, n);
}

// The largest of n >= 1 values (NaN-free).
float max_f32(const float *x, int64_t n);

// Dot product of fp32 vectors.
float dot_f32(const float *a, const float *b, int64_t n);

// Attention of query heads [h0, h0 + n_heads) of one token: for each head
// h, out_h = sum_p softmax_p(scale * q_h . k_p) v_p over the n_pos positions
// first .. first + n_pos - 1 (first > 0: a sliding window), where k_p, v_p
// belong to KV head h / group (grouped-query attention).
// KV head j's key at position p is k + j * head_stride + p * head_dim values
// of type kv_type (F32 or F16: the KV cache's layout), v likewise. q and out
// hold the n_heads heads' vectors, head_dim apart. `scores` has room for
// n_heads * n_pos floats. Positions are the outer loop, heads the inner: the
// block's KV heads are read as that many sequential streams at once.
void attention_heads(DType kv_type, const float *q, const void *k, const void *v,
                     int64_t head_stride, int64_t n_pos, int64_t head_dim, int64_t h0,
                     int64_t n_heads, int64_t group, float scale, float *scores, float *out,
                     int64_t first = 0);

// Causal attention of a batch of n_tokens consecutive tokens, the first at
// position pos0, over the KV cache (which already holds them): for each
// query head h of token t, out = sum over p <= pos0 + t of softmax_p(scale *
// q . k_p) v_p, with k, v as in attention_heads. window > 0 restricts p to
// the last `window` positions, p > pos0 + t - window (a sliding window). q and out are n_tokens x
// (n_heads x head_dim), row-major. The query rows of each KV head are
// computed as GEMMs against blocks of keys and values with an online
// softmax (flash-attention style), so the cache is read once per block of
// query rows instead of once per token.
void attention_batch(DType kv_type, const float *q, const void *k, const void *v,
                     int64_t head_stride, int64_t n_tokens, int32_t pos0, int64_t head_dim,
                     int64_t n_heads, int64_t n_kv_heads, float scale, float *out, ThreadPool *pool,
                     int64_t window = 0);

// RoPE on `n_heads` heads of `head_dim` values at `pos`.
// interleaved: pairs (2i, 2i+1); otherwise pairs (i, i + head_dim/2).
// cos_sin holds head_dim/2 (cos, sin) pairs for this position.
void rope(float *x, int64_t n_heads, int64_t head_dim, const float *cos_sin, bool interleaved);

// cos_sin[2i], cos_sin[2i+1] = cos, sin of pos * theta^(-2i/head_dim) /
// divisors[i] (divisors may be null: all 1).
void rope_angles(float *cos_sin, int64_t head_dim, int32_t pos, float theta,
                 const float *divisors = nullptr);

} // namespace llm
