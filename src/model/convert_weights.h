// Load-time conversion of weight matrices to the in-memory type the caller
// asked for (LLM_WEIGHTS_*): e.g. fp32 checkpoints to bf16, or anything to
// Q8_0. Matrices that a type cannot represent (Q8_0 needs a column count
// divisible by 32, e.g. stories260K's hidden_dim 172) keep their type.
#pragma once

#include <cstdint>

#include "model/model.h"

namespace llm {

void convert_weights(Model &model, int32_t weight_type);

// The DType of an LLM_WEIGHTS_* value other than AUTO; INVALID_ARGUMENT if
// there is none.
DType weight_dtype(int32_t weight_type);

// Whether matrices of `cols` columns can be stored as `type`.
bool dtype_can_hold(DType type, int64_t cols);

// Encodes one row of `cols` fp32 values as `type` into dtype_row_bytes(type,
// cols) bytes at `dst`.
void encode_row(const float *row, int64_t cols, DType type, uint8_t *dst);

} // namespace llm
