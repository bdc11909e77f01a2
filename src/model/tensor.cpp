#include "model/tensor.h"

#include "kernels/quant.h"

namespace llm {

const char *dtype_name(DType t) {
    switch (t) {
    case DType::F32: return "f32";
    case DType::BF16: return "bf16";
    case DType::F16: return "f16";
    case DType::Q8_0: return "q8_0";
    }
    return "?";
}

size_t dtype_row_bytes(DType t, int64_t n) {
    switch (t) {
    case DType::F32: return static_cast<size_t>(n) * 4;
    case DType::BF16:
    case DType::F16: return static_cast<size_t>(n) * 2;
    case DType::Q8_0: return static_cast<size_t>(q8_0_row_bytes(n));
    }
    return 0;
}

size_t Matrix::row_bytes() const {
    return dtype_row_bytes(type, cols);
}

} // namespace llm
