#include "handles.h"

#include <atomic>

namespace llmnode {

namespace {
std::atomic<int64_t> g_models{0};
std::atomic<int64_t> g_contexts{0};
} // namespace

ModelHandle::ModelHandle(llm_model *model) : model_(model) {
    ++g_models;
}

ModelHandle::~ModelHandle() {
    llm_model_free(model_);
    --g_models;
}

ContextHandle::ContextHandle(std::shared_ptr<ModelHandle> model, llm_context *ctx)
    : model_(std::move(model)), ctx_(ctx) {
    ++g_contexts;
}

ContextHandle::~ContextHandle() {
    llm_context_free(ctx_); // before model_ is released
    --g_contexts;
}

void ContextHandle::ConsumeStaleCancel() {
    if (llm_context_position(ctx_) >= llm_context_n_ctx(ctx_)) {
        cancel_pending = true; // llm_forward would fail with CONTEXT_FULL first
        return;
    }
    // Token 0 is valid in every vocabulary; the pending request makes the
    // call return CANCELLED on entry, before the token is used.
    const llm_token any = 0;
    llm_forward(ctx_, &any, 1);
    cancel_pending = false;
}

LiveCounts live_counts() {
    return {g_models.load(), g_contexts.load()};
}

} // namespace llmnode
