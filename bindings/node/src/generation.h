// One streaming generation: a worker thread runs the pull-style loop of llm.h
// (llm_forward for the prompt, then llm_context_step per token) and hands
// each piece of text to JS through a thread-safe function.
//
// Back-pressure: the worker may run at most `window` pieces ahead of the JS
// consumer; then it waits until JS reports (Pull) that it took some. While it
// waits, the thread-safe function is unref'd, so an unread generation does
// not keep the process alive. A stop asked for from JS (Cancel) refs it
// again: the end is then on its way and JS is waiting for it.
//
// Stopping: Stop() wakes a waiting worker and cancels a running engine call
// with llm_context_cancel(). A cancel that lands just after the call returned
// would stop the context's next call instead; the worker consumes it before
// it reports the end (see ContextHandle::ConsumeStaleCancel).
#pragma once

#include <napi.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "errors.h"
#include "handles.h"
#include "llm.h"

namespace llmnode {

using SamplerPtr = std::unique_ptr<llm_sampler, void (*)(llm_sampler *)>;

struct GenerationRequest {
    std::vector<llm_token> prompt; // fed first; empty = continue from the context's state
    int32_t max_tokens = 0;        // 0 = until end-of-generation or the context is full
    uint32_t window = 8;           // pieces the worker may produce ahead of the consumer
};

class Generation {
  public:
    // Starts the worker. `callback` runs on the JS thread:
    //   callback(text, token)                          once per generated token
    //   callback(null, stopReason, error|null, count)  once at the end
    // stopReason: "eog", "maxTokens", "contextFull", "cancelled" or "error".
    static std::shared_ptr<Generation> Start(Napi::Env env, std::shared_ptr<ContextHandle> ctx,
                                             SamplerPtr sampler, GenerationRequest request,
                                             Napi::Function callback);
    ~Generation();
    Generation(const Generation &) = delete;
    Generation &operator=(const Generation &) = delete;

    // JS thread: the consumer took `n` pieces, so the worker may make n more.
    void Pull(Napi::Env env, uint32_t n);
    // Any thread: stop as soon as possible (the end is reported as "cancelled").
    void Stop();
    // JS thread: Stop(), and keep the event loop alive until the end has
    // been delivered. A reader that stops drops its unread pieces and never
    // pulls again, so without this a full window would leave the function
    // unref'd and the process could exit with the end still on its way.
    void Cancel(Napi::Env env);

  private:
    struct Event;
    static void CallJs(Napi::Env env, Napi::Function callback, Generation *self, Event *event);
    using Tsfn = Napi::TypedThreadSafeFunction<Generation, Event, &Generation::CallJs>;

    Generation(std::shared_ptr<ContextHandle> ctx, SamplerPtr sampler, GenerationRequest request);
    static void Finalize(Napi::Env env, std::shared_ptr<Generation> *keep, Generation *self);

    void Run();                           // the worker thread
    void SetRef(Napi::Env env, bool ref); // JS thread
    bool WaitForCredit();                 // false when stopped
    template <typename F> llm_status Call(F &&engine_call);
    bool Post(Event *event); // false when JS is gone

    std::shared_ptr<ContextHandle> ctx_;
    SamplerPtr sampler_;
    GenerationRequest request_;
    Tsfn tsfn_;
    std::thread thread_;

    std::mutex mutex_; // guards the fields below
    std::condition_variable wake_;
    uint32_t credits_;
    bool stop_ = false;
    bool in_call_ = false;      // the worker is inside an engine call
    bool cancel_armed_ = false; // llm_context_cancel() was called during that call
    bool stale_cancel_ = false; // ... and the call did not consume it

    Failure failure_;        // worker only: the first failed call
    uint32_t unread_ = 0;    // JS thread only: pieces delivered but not pulled
    bool unrefed_ = false;   // JS thread only: tsfn_ is unref'd (the window is full)
    bool cancelled_ = false; // JS thread only: Cancel() was called, stay ref'd
    bool finished_ = false;  // JS thread only: the end was delivered (tsfn_ may be gone)
};

} // namespace llmnode
