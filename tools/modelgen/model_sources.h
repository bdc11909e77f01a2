// Where the values of a written model come from: a seeded random generator
// for the benchmark shapes, or a loaded model being converted.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/model.h"
#include "model_writer.h"

namespace llm::gen {

// Named shapes: llm-bench's qwen2.5-0.5b, qwen3-0.6b, llama3.2-1b,
// gemma3-1b, stories15M, stories42M, stories110M (model/synthetic_model.h),
// the test-sized qwen2-tiny and stories260K, tiny256 / tiny256-llama (every
// width a multiple of 256, for GGUF's K types) and qwen3-tiny, llama3-tiny,
// gemma3-tiny (the same widths, tok512's vocabulary). nullptr if unknown.
const ModelSpec *find_shape(const std::string &name);
std::vector<std::string> shape_names();

// Random weights for `spec`, the same for the same seed on every platform:
// matrices uniform with standard deviation 1/sqrt(columns), norm gains near
// 1, small biases.
std::vector<TensorSource> random_tensors(const ModelSpec &spec, uint64_t seed);
// The same draws rescaled to shared/models/qwen2-tiny's "peaked" scales
// (large q/k and final-norm gain, small residual stream: sharp attention
// and logits with clear top-1 margins; shared/models/README.md), matrices
// scaled by 8 / sqrt(input width) beyond qwen2-tiny's 64.
std::vector<TensorSource> peaked_tensors(const ModelSpec &spec, uint64_t seed);

// The spec of a loaded model (tied as it is, or untied if `untie`).
ModelSpec spec_of(const Model &model, bool untie);
// Its tensors in HF layout (q/k rows permuted if the model uses llama2.c's
// interleaved RoPE). They read `model`, which must outlive them.
std::vector<TensorSource> model_tensors(const Model &model, const ModelSpec &spec);

// Row `r` of a q or k projection in llama2.c's interleaved order, for the
// row in rotate_half order (and back): inside each head of `head_dim` rows,
// interleaved row 2i+p is rotate_half row p*head_dim/2 + i.
int64_t interleaved_row_of_half_split(int64_t r, int64_t head_dim);
int64_t half_split_row_of_interleaved(int64_t r, int64_t head_dim);

} // namespace llm::gen
