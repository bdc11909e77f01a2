// Owning handles for the engine's objects, shared between JS wrappers and
// worker threads so that nothing is freed while something still uses it.
#pragma once

#include <cstdint>
#include <memory>

#include "llm.h"

namespace llmnode {

// One loaded model. The JS Model and every context created on it hold a
// reference, so llm_model_free() runs only after the last context is gone.
class ModelHandle {
  public:
    explicit ModelHandle(llm_model *model);
    ~ModelHandle();
    ModelHandle(const ModelHandle &) = delete;
    ModelHandle &operator=(const ModelHandle &) = delete;

    llm_model *get() const { return model_; }

  private:
    llm_model *model_;
};

// One context (conversation). Holds its model alive. The flags are touched on
// the JS thread only, or by a generation's worker before it reports that it
// has finished (the report orders the accesses).
class ContextHandle {
  public:
    ContextHandle(std::shared_ptr<ModelHandle> model, llm_context *ctx);
    ~ContextHandle();
    ContextHandle(const ContextHandle &) = delete;
    ContextHandle &operator=(const ContextHandle &) = delete;

    llm_context *get() const { return ctx_; }
    const llm_model *model() const { return model_->get(); }

    // A cancel request reached the context after the call it was meant for
    // had returned, so it would stop the next call instead. Consume it now
    // (an llm_forward that returns CANCELLED before doing any work); when the
    // context is full that is impossible and cancel_pending stays set until a
    // reset or rewind.
    void ConsumeStaleCancel();

    bool busy = false;           // a generation is running on this context
    bool cancel_pending = false; // see ConsumeStaleCancel

  private:
    std::shared_ptr<ModelHandle> model_;
    llm_context *ctx_;
};

// How many models and contexts are alive (tests use it to check that garbage
// collection and dispose() release them).
struct LiveCounts {
    int64_t models;
    int64_t contexts;
};
LiveCounts live_counts();

} // namespace llmnode
