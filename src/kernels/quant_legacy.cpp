// (stub: filled in by the legacy kernels' work)
#include "common/error.h"
#include "kernels/kernel_table.h"

namespace llm {

void quantize_row_legacy(DType t, const float *, uint8_t *, int64_t) {
    fail(LLM_ERR_UNSUPPORTED, "quantizing to ", dtype_name(t), " is not implemented yet");
}
void dequantize_row_legacy(DType t, const uint8_t *, float *, int64_t) {
    fail(LLM_ERR_UNSUPPORTED, "reading ", dtype_name(t), " is not implemented yet");
}
void fill_scalar_legacy_kernels(KernelTable &) {}

} // namespace llm
