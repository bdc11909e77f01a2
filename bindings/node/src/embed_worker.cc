#include "embed_worker.h"

#include <algorithm>

#include "errors.h"
#include "sized_call.h"

namespace llmnode {

namespace {

class EmbedWorker : public Napi::AsyncWorker {
  public:
    EmbedWorker(Napi::Env env, std::shared_ptr<ModelHandle> model, std::vector<llm_token> ids,
                int32_t pooling, int32_t normalize, int32_t threads)
        : Napi::AsyncWorker(env, "libllm.embed"), deferred_(Napi::Promise::Deferred::New(env)),
          model_(std::move(model)), ids_(std::move(ids)), pooling_(pooling), normalize_(normalize),
          threads_(threads) {}

    Napi::Promise Promise() const { return deferred_.Promise(); }

  protected:
    void Execute() override {
        const llm_model *m = model_->get();
        llm_context_params params = llm_context_default_params();
        // Positions for the text, up to the model's maximum (more is
        // CONTEXT_FULL from llm_embed).
        params.n_ctx = static_cast<int32_t>(std::min<size_t>(
            std::max<size_t>(ids_.size(), 1), static_cast<size_t>(llm_model_n_ctx_train(m))));
        params.n_threads = threads_;
        params.embeddings = 1;
        llm_context *ctx = nullptr;
        llm_status s = llm_context_new(m, &params, &ctx);
        if (s != LLM_OK) {
            failure_ = Failure::Last(s);
            return;
        }
        s = CallSized(values_, [&](float *buf, size_t cap, size_t *n) {
            return llm_embed(ctx, ids_.data(), ids_.size(), pooling_, normalize_, buf, cap, n);
        });
        if (s != LLM_OK) failure_ = Failure::Last(s);
        llm_context_free(ctx);
    }

    void OnError(const Napi::Error &e) override {
        deferred_.Reject(MakeError(Env(), Failure{LLM_ERR_OUT_OF_MEMORY, e.Message()}));
    }

    void OnOK() override {
        Napi::Env env = Env();
        if (failure_.status != LLM_OK) {
            deferred_.Reject(MakeError(env, failure_));
            return;
        }
        Napi::Float32Array out = Napi::Float32Array::New(env, values_.size());
        std::copy(values_.begin(), values_.end(), out.Data());
        deferred_.Resolve(out);
    }

  private:
    Napi::Promise::Deferred deferred_;
    std::shared_ptr<ModelHandle> model_; // alive until the worker is done
    std::vector<llm_token> ids_;
    int32_t pooling_, normalize_, threads_;
    std::vector<float> values_;
    Failure failure_;
};

} // namespace

Napi::Promise EmbedAsync(Napi::Env env, std::shared_ptr<ModelHandle> model,
                         std::vector<llm_token> ids, int32_t pooling, int32_t normalize,
                         int32_t threads) {
    auto *worker =
        new EmbedWorker(env, std::move(model), std::move(ids), pooling, normalize, threads);
    Napi::Promise promise = worker->Promise();
    worker->Queue(); // deletes itself after OnOK/OnError
    return promise;
}

} // namespace llmnode
