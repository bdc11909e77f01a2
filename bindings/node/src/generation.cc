#include "generation.h"

#include <utility>

namespace llmnode {

struct Generation::Event {
    bool done = false;
    std::string text;                  // a piece
    llm_token token = LLM_TOKEN_NONE;  // a piece
    const char *stop_reason = nullptr; // the end
    Failure failure;                   // the end
    int32_t count = 0;                 // the end: tokens generated
};

Generation::Generation(std::shared_ptr<ContextHandle> ctx, SamplerPtr sampler,
                       GenerationRequest request)
    : ctx_(std::move(ctx)), sampler_(std::move(sampler)), request_(std::move(request)),
      credits_(request_.window) {}

Generation::~Generation() {
    // Finalize joins before it drops the last reference; this is a safety net.
    if (thread_.joinable()) thread_.join();
}

std::shared_ptr<Generation> Generation::Start(Napi::Env env, std::shared_ptr<ContextHandle> ctx,
                                              SamplerPtr sampler, GenerationRequest request,
                                              Napi::Function callback) {
    std::shared_ptr<Generation> self(
        new Generation(std::move(ctx), std::move(sampler), std::move(request)));
    // The finalizer owns one reference: the object lives until the worker
    // has been joined, whatever happens to the JS side.
    self->tsfn_ = Tsfn::New(env, callback, "libllm.generate", 0, 1, self.get(), &Finalize,
                            new std::shared_ptr<Generation>(self));
    self->ctx_->busy = true;
    try {
        self->thread_ = std::thread(&Generation::Run, self.get());
    } catch (const std::exception &e) {
        self->ctx_->busy = false;
        self->tsfn_.Release();
        Throw(env, LLM_ERR_INTERNAL, std::string("cannot start a generation thread: ") + e.what());
    }
    return self;
}

void Generation::Pull(Napi::Env env, uint32_t n) {
    n = std::min(n, unread_);
    if (n == 0 || finished_) return;
    unread_ -= n;
    if (unrefed_ && unread_ < request_.window) SetRef(env, true);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        credits_ += n;
    }
    wake_.notify_all();
}

void Generation::Stop() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (stop_) return;
        stop_ = true;
        if (in_call_) { // then ctx_ is still set
            llm_context_cancel(ctx_->get());
            cancel_armed_ = true;
        }
    }
    wake_.notify_all();
}

void Generation::Cancel(Napi::Env env) {
    cancelled_ = true;
    if (!finished_ && unrefed_) SetRef(env, true);
    Stop();
}

void Generation::SetRef(Napi::Env env, bool ref) {
    if (ref)
        tsfn_.Ref(env);
    else
        tsfn_.Unref(env);
    unrefed_ = !ref;
}

bool Generation::WaitForCredit() {
    std::unique_lock<std::mutex> lock(mutex_);
    wake_.wait(lock, [this] { return stop_ || credits_ > 0; });
    if (stop_) return false;
    --credits_;
    return true;
}

template <typename F> llm_status Generation::Call(F &&engine_call) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (stop_) {
            failure_ = {LLM_ERR_CANCELLED, "cancelled"};
            return LLM_ERR_CANCELLED;
        }
        in_call_ = true;
    }
    const llm_status s = engine_call();
    // Read the message now: llm_last_error() belongs to this thread and call.
    if (s != LLM_OK) failure_ = Failure::Last(s);
    std::lock_guard<std::mutex> lock(mutex_);
    in_call_ = false;
    // Only a call that returns CANCELLED consumes a cancel request.
    if (cancel_armed_ && s != LLM_ERR_CANCELLED) stale_cancel_ = true;
    cancel_armed_ = false;
    return s;
}

bool Generation::Post(Event *event) {
    if (tsfn_.BlockingCall(event) == napi_ok) return true;
    delete event; // the environment is shutting down
    return false;
}

void Generation::Run() {
    llm_context *ctx = ctx_->get();
    llm_status s = LLM_OK;
    const char *reason = "maxTokens";
    int32_t count = 0;
    if (!request_.prompt.empty())
        s = Call([&] { return llm_forward(ctx, request_.prompt.data(), request_.prompt.size()); });
    std::vector<char> text(llm_context_step_max_bytes(ctx));
    while (s == LLM_OK && (request_.max_tokens == 0 || count < request_.max_tokens)) {
        if (!WaitForCredit()) {
            s = LLM_ERR_CANCELLED;
            failure_ = {s, "cancelled"};
            break;
        }
        llm_token token = LLM_TOKEN_NONE;
        int32_t eog = 0;
        size_t len = 0;
        s = Call([&] {
            return llm_context_step(ctx, sampler_.get(), &token, &eog, text.data(), text.size(),
                                    &len);
        });
        if (eog) {
            reason = "eog";
            break;
        }
        if (s != LLM_OK && s != LLM_ERR_CONTEXT_FULL) break;
        ++count;
        Event *piece = new Event;
        piece->text.assign(text.data(), len);
        piece->token = token;
        if (!Post(piece)) {
            s = LLM_ERR_CANCELLED;
            failure_ = {s, "the JavaScript environment is shutting down"};
            break;
        }
        if (s == LLM_ERR_CONTEXT_FULL) { // the token was returned but not fed
            reason = "contextFull";
            s = LLM_OK;
            break;
        }
    }
    if (s == LLM_ERR_CANCELLED)
        reason = "cancelled";
    else if (s != LLM_OK)
        reason = "error";

    bool stale;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stale = stale_cancel_;
    }
    if (stale) ctx_->ConsumeStaleCancel();

    Event *end = new Event;
    end->done = true;
    end->stop_reason = reason;
    if (s != LLM_OK) end->failure = failure_;
    end->count = count;
    Post(end);
    tsfn_.Release();
}

void Generation::CallJs(Napi::Env env, Napi::Function callback, Generation *self, Event *event) {
    std::unique_ptr<Event> e(event);
    if (env == nullptr) return; // the environment is shutting down
    try {
        if (!e->done) {
            if (++self->unread_ == self->request_.window && !self->cancelled_)
                self->SetRef(env, false);
            callback.Call({Napi::String::New(env, e->text), Napi::Number::New(env, e->token)});
        } else {
            // The worker is done with the context: let it go now rather than
            // when the JS handle of this generation is collected.
            self->finished_ = true;
            self->ctx_->busy = false;
            self->ctx_.reset();
            self->sampler_.reset();
            Napi::Value error =
                e->failure.status != LLM_OK ? MakeError(env, e->failure) : env.Null();
            callback.Call({env.Null(), Napi::String::New(env, e->stop_reason), error,
                           Napi::Number::New(env, e->count)});
        }
    } catch (const Napi::Error &error) {
        // A callback threw: that surfaces as an uncaught exception. During
        // teardown JS cannot run and the throw fails: nothing to report then.
        try {
            napi_throw(env, error.Value());
        } catch (const Napi::Error &) {
        }
    }
}

void Generation::Finalize(Napi::Env, std::shared_ptr<Generation> *keep, Generation *self) {
    // Normally the worker released the function and is about to return; at
    // environment teardown it may still be running or waiting: stop it.
    self->Stop();
    if (self->thread_.joinable()) self->thread_.join();
    delete keep;
}

} // namespace llmnode
