// Load-time conversion of weight matrices to the in-memory type the caller
// asked for (LLM_WEIGHTS_*): e.g. fp32 checkpoints to bf16, or anything to
// Q8_0. Matrices that a type cannot represent (Q8_0 needs a column count
// divisible by 32) keep their type.
#pragma once

#include <cstdint>

#include "model/model.h"

namespace llm {

void convert_weights(Model &model, int32_t weight_type);

} // namespace llm
