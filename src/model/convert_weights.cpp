#include "model/convert_weights.h"

#include <cstring>
#include <vector>

#include "common/error.h"
#include "kernels/float_convert.h"
#include "kernels/kernels.h"
#include "kernels/quant.h"
#include "kernels/quant_blocks.h"
#include "kernels/thread_pool.h"

namespace llm {

DType weight_dtype(int32_t weight_type) {
    switch (weight_type) {
    case LLM_WEIGHTS_F32: return DType::F32;
    case LLM_WEIGHTS_BF16: return DType::BF16;
    case LLM_WEIGHTS_F16: return DType::F16;
    case LLM_WEIGHTS_Q8_0: return DType::Q8_0;
    case LLM_WEIGHTS_Q4_0: return DType::Q4_0;
    case LLM_WEIGHTS_Q4_1: return DType::Q4_1;
    case LLM_WEIGHTS_Q5_0: return DType::Q5_0;
    case LLM_WEIGHTS_Q5_1: return DType::Q5_1;
    case LLM_WEIGHTS_Q4_K: return DType::Q4_K;
    case LLM_WEIGHTS_Q5_K: return DType::Q5_K;
    case LLM_WEIGHTS_Q6_K: return DType::Q6_K;
    default: fail(LLM_ERR_INVALID_ARGUMENT, "unknown weight_type ", weight_type);
    }
}

bool dtype_can_hold(DType type, int64_t cols) {
    return cols % dtype_block_values(type) == 0;
}

void encode_row(const float *row, int64_t cols, DType type, uint8_t *dst) {
    switch (type) {
    case DType::F32: std::memcpy(dst, row, static_cast<size_t>(cols) * 4); break;
    case DType::BF16:
        for (int64_t j = 0; j < cols; ++j) {
            const uint16_t h = f32_to_bf16(row[j]);
            std::memcpy(dst + 2 * j, &h, 2);
        }
        break;
    case DType::F16:
        for (int64_t j = 0; j < cols; ++j) {
            const uint16_t h = f32_to_f16(row[j]);
            std::memcpy(dst + 2 * j, &h, 2);
        }
        break;
    case DType::Q8_0: quantize_row_q8_0(row, dst, cols); break;
    default: quantize_row_blocks(type, row, dst, cols); break;
    }
}

namespace {

Matrix convert(Model &model, const Matrix &m, DType target, ThreadPool &pool) {
    // Block-quantized weights (a GGUF file's) are used as they are: going
    // through fp32 to another quantized type would only add rounding.
    if (m.type == target || !dtype_can_hold(target, m.cols) || dtype_block_values(m.type) > 1)
        return m;
    Matrix out{nullptr, target, m.rows, m.cols};
    uint8_t *dst = model.allocate(out.bytes());
    std::vector<std::vector<float>> rows(static_cast<size_t>(pool.size()),
                                         std::vector<float>(static_cast<size_t>(m.cols)));
    pool.parallel_for(m.rows, 64, [&](int64_t begin, int64_t end, int thread) {
        float *row = rows[static_cast<size_t>(thread)].data();
        for (int64_t i = begin; i < end; ++i) {
            matrix_row_f32(m, i, row);
            encode_row(row, m.cols, target, dst + static_cast<size_t>(i) * out.row_bytes());
        }
    });
    out.data = dst;
    // The source is not read again: keep it from staying resident.
    for (const auto &file : model.files)
        file->drop_pages(m.data, m.bytes());
    return out;
}

} // namespace

void convert_weights(Model &model, int32_t weight_type) {
    if (weight_type == LLM_WEIGHTS_AUTO) return;
    const DType target = weight_dtype(weight_type);
    ThreadPool pool(ThreadPool::physical_cores());
    ModelWeights &w = model.weights;
    const bool tied = w.classifier.data == w.token_embedding.data;
    w.token_embedding = convert(model, w.token_embedding, target, pool);
    w.classifier = tied ? w.token_embedding : convert(model, w.classifier, target, pool);
    for (auto &l : w.layers)
        for (Matrix *m : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down})
            *m = convert(model, *m, target, pool);
}

} // namespace llm
