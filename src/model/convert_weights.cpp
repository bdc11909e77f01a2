#include "model/convert_weights.h"

#include <cstring>
#include <vector>

#include "common/error.h"
#include "kernels/float_convert.h"
#include "kernels/kernels.h"
#include "kernels/quant.h"

namespace llm {

namespace {

bool can_hold(DType target, const Matrix &m) {
    return target != DType::Q8_0 || m.cols % kQ8BlockSize == 0;
}

Matrix convert(Model &model, const Matrix &m, DType target) {
    if (m.type == target || !can_hold(target, m)) return m;
    Matrix out{nullptr, target, m.rows, m.cols};
    uint8_t *dst = model.allocate(out.bytes());
    std::vector<float> row(static_cast<size_t>(m.cols));
    for (int64_t i = 0; i < m.rows; ++i) {
        matrix_row_f32(m, i, row.data());
        uint8_t *d = dst + static_cast<size_t>(i) * out.row_bytes();
        switch (target) {
        case DType::F32: std::memcpy(d, row.data(), row.size() * 4); break;
        case DType::BF16:
            for (int64_t j = 0; j < m.cols; ++j)
                reinterpret_cast<uint16_t *>(d)[j] = f32_to_bf16(row[static_cast<size_t>(j)]);
            break;
        case DType::F16:
            for (int64_t j = 0; j < m.cols; ++j)
                reinterpret_cast<uint16_t *>(d)[j] = f32_to_f16(row[static_cast<size_t>(j)]);
            break;
        case DType::Q8_0:
            quantize_row_q8_0(row.data(), reinterpret_cast<BlockQ8_0 *>(d), m.cols);
            break;
        }
    }
    out.data = dst;
    return out;
}

} // namespace

void convert_weights(Model &model, int32_t weight_type) {
    DType target;
    switch (weight_type) {
    case LLM_WEIGHTS_AUTO: return;
    case LLM_WEIGHTS_F32: target = DType::F32; break;
    case LLM_WEIGHTS_BF16: target = DType::BF16; break;
    case LLM_WEIGHTS_F16: target = DType::F16; break;
    case LLM_WEIGHTS_Q8_0: target = DType::Q8_0; break;
    default: fail(LLM_ERR_INVALID_ARGUMENT, "unknown weight_type ", weight_type);
    }
    ModelWeights &w = model.weights;
    const bool tied = w.classifier.data == w.token_embedding.data;
    w.token_embedding = convert(model, w.token_embedding, target);
    w.classifier = tied ? w.token_embedding : convert(model, w.classifier, target);
    for (auto &l : w.layers)
        for (Matrix *m : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down})
            *m = convert(model, *m, target);
}

} // namespace llm
