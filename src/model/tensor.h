// Views of weight tensors. The bytes live in a memory map or in storage
// owned by the Model; these structs never own anything.
#pragma once

#include <cstddef>
#include <cstdint>

namespace llm {

enum class DType : uint8_t {
    F32,
    BF16,
    F16,
    Q8_0, // rows of blocks: 32 int8 values sharing one scale (see kernels/quant.h)
    // GGUF's block-quantized types, rows of blocks in the file's own layout
    // (kernels/quant_blocks.h): used in place from the memory map.
    Q4_0,
    Q4_1,
    Q5_0,
    Q5_1,
    Q4_K,
    Q5_K,
    Q6_K,
};

// Values per block of a block type (1 for F32/BF16/F16): a row's length
// must be a multiple of it.
int64_t dtype_block_values(DType t);

const char *dtype_name(DType t);

// A row-major matrix of `rows` x `cols` (out_features x in_features), so that
// y = W x reads W[i * cols + j]. Rows are `row_bytes` apart.
struct Matrix {
    const void *data = nullptr;
    DType type = DType::F32;
    int64_t rows = 0;
    int64_t cols = 0;

    bool empty() const { return data == nullptr; }
    size_t row_bytes() const;
    size_t bytes() const { return row_bytes() * static_cast<size_t>(rows); }
    const uint8_t *row(int64_t i) const {
        return static_cast<const uint8_t *>(data) + static_cast<size_t>(i) * row_bytes();
    }
};

// Small fp32 vectors (norm gains, biases): always widened to fp32 at load.
struct Vector {
    const float *data = nullptr;
    int64_t n = 0;
    bool empty() const { return data == nullptr; }
};

// Bytes taken by `n` consecutive values of type `t` (n a multiple of the
// block size for block types).
size_t dtype_row_bytes(DType t, int64_t n);

} // namespace llm
