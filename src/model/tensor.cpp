#include "model/tensor.h"

#include "kernels/quant.h"
#include "kernels/quant_blocks.h"

namespace llm {

const char *dtype_name(DType t) {
    switch (t) {
    case DType::F32: return "f32";
    case DType::BF16: return "bf16";
    case DType::F16: return "f16";
    case DType::Q8_0: return "q8_0";
    case DType::Q4_0: return "q4_0";
    case DType::Q4_1: return "q4_1";
    case DType::Q5_0: return "q5_0";
    case DType::Q5_1: return "q5_1";
    case DType::Q4_K: return "q4_k";
    case DType::Q5_K: return "q5_k";
    case DType::Q6_K: return "q6_k";
    }
    return "?";
}

size_t dtype_row_bytes(DType t, int64_t n) {
    switch (t) {
    case DType::F32: return static_cast<size_t>(n) * 4;
    case DType::BF16:
    case DType::F16: return static_cast<size_t>(n) * 2;
    case DType::Q8_0: return static_cast<size_t>(q8_0_row_bytes(n));
    case DType::Q4_0:
    case DType::Q4_1:
    case DType::Q5_0:
    case DType::Q5_1:
    case DType::Q4_K:
    case DType::Q5_K:
    case DType::Q6_K: return static_cast<size_t>(n / dtype_block_values(t)) * block_type_bytes(t);
    }
    return 0;
}

int64_t dtype_block_values(DType t) {
    switch (t) {
    case DType::F32:
    case DType::BF16:
    case DType::F16: return 1;
    case DType::Q8_0:
    case DType::Q4_0:
    case DType::Q4_1:
    case DType::Q5_0:
    case DType::Q5_1: return 32;
    case DType::Q4_K:
    case DType::Q5_K:
    case DType::Q6_K: return kSuperBlockValues;
    }
    return 1;
}

size_t Matrix::row_bytes() const {
    return dtype_row_bytes(type, cols);
}

} // namespace llm
