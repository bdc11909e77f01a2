#include "model_wrap.h"

#include <string>
#include <vector>

#include "addon_data.h"
#include "args.h"
#include "chat_template.h"
#include "embed_worker.h"
#include "errors.h"
#include "handle_passing.h"
#include "session_wrap.h"
#include "sized_call.h"
#include "text_ops.h"

namespace llmnode {

namespace {

class LoadWorker : public Napi::AsyncWorker {
  public:
    LoadWorker(Napi::Env env, std::string path, bool has_tokenizer, std::string tokenizer,
               int32_t weight_type, bool mmap)
        : Napi::AsyncWorker(env, "libllm.load"), deferred_(Napi::Promise::Deferred::New(env)),
          path_(std::move(path)), has_tokenizer_(has_tokenizer), tokenizer_(std::move(tokenizer)),
          weight_type_(weight_type), mmap_(mmap) {}

    Napi::Promise Promise() const { return deferred_.Promise(); }

  protected:
    void Execute() override {
        llm_model_params params = llm_model_default_params();
        params.tokenizer_path = has_tokenizer_ ? tokenizer_.c_str() : nullptr;
        params.weight_type = weight_type_;
        params.use_mmap = mmap_ ? 1 : 0;
        llm_model *model = nullptr;
        const llm_status s = llm_model_load(path_.c_str(), &params, &model);
        if (s != LLM_OK) {
            failure_ = Failure::Last(s); // this worker thread's error
            return;
        }
        try {
            handle_ = std::make_shared<ModelHandle>(model);
        } catch (...) {
            llm_model_free(model);
            throw; // reported by OnError
        }
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
        try {
            deferred_.Resolve(ModelWrap::NewInstance(env, std::move(handle_)));
        } catch (const Napi::Error &e) {
            deferred_.Reject(e.Value());
        }
    }

  private:
    Napi::Promise::Deferred deferred_;
    std::string path_;
    bool has_tokenizer_;
    std::string tokenizer_;
    int32_t weight_type_;
    bool mmap_;
    Failure failure_;
    std::shared_ptr<ModelHandle> handle_; // freed here if it never reaches JS
};

} // namespace

Napi::Function ModelWrap::Define(Napi::Env env) {
    return DefineClass(env, "NativeModel",
                       {
                           InstanceMethod<&ModelWrap::Info>("info"),
                           InstanceMethod<&ModelWrap::Tokenize>("tokenize"),
                           InstanceMethod<&ModelWrap::Detokenize>("detokenize"),
                           InstanceMethod<&ModelWrap::TokenPiece>("tokenPiece"),
                           InstanceMethod<&ModelWrap::FormatChat>("formatChat"),
                           InstanceMethod<&ModelWrap::ApplyChatTemplate>("applyChatTemplate"),
                           InstanceMethod<&ModelWrap::ChatTemplate>("chatTemplate"),
                           InstanceMethod<&ModelWrap::ParseChat>("parseChat"),
                           InstanceMethod<&ModelWrap::IsEog>("isEog"),
                           InstanceMethod<&ModelWrap::IsSpecial>("isSpecial"),
                           InstanceMethod<&ModelWrap::Metadata>("metadata"),
                           InstanceMethod<&ModelWrap::Meta>("meta"),
                           InstanceMethod<&ModelWrap::CreateSession>("createSession"),
                           InstanceMethod<&ModelWrap::Embed>("embed"),
                           InstanceMethod<&ModelWrap::DefaultPooling>("defaultPooling"),
                           InstanceMethod<&ModelWrap::Dispose>("dispose"),
                       });
}

Napi::Object ModelWrap::NewInstance(Napi::Env env, std::shared_ptr<ModelHandle> handle) {
    return NewWithHandle(env, AddonData::Of(env).model_class, std::move(handle));
}

ModelWrap::ModelWrap(const Napi::CallbackInfo &info)
    : Napi::ObjectWrap<ModelWrap>(info),
      handle_(HandleFromConstructor<ModelHandle>(info, "use Model.load() to create a model")) {}

llm_model *ModelWrap::Get(Napi::Env env) const {
    if (!handle_) Throw(env, LLM_ERR_INVALID_ARGUMENT, "the model has been disposed");
    return handle_->get();
}

Napi::Value ModelWrap::Info(const Napi::CallbackInfo &info) {
    Napi::Env env = info.Env();
    const llm_model *m = Get(env);
    Napi::Object out = Napi::Object::New(env);
    out.Set("arch", llm_model_arch(m));
    out.Set("vocabSize", llm_model_n_vocab(m));
    out.Set("contextLength", llm_model_n_ctx_train(m));
    out.Set("embeddingLength", llm_model_n_embd(m));
    out.Set("layerCount", llm_model_n_layer(m));
    out.Set("headCount", llm_model_n_head(m));
    out.Set("kvHeadCount", llm_model_n_head_kv(m));
    out.Set("paramCount", static_cast<double>(llm_model_n_params(m)));
    out.Set("weightBytes", static_cast<double>(llm_model_weight_bytes(m)));
    out.Set("weightType", llm_model_weight_type(m));
    out.Set("bos", llm_model_bos(m));
    out.Set("eos", llm_model_eos(m));
    return out;
}

Napi::Value ModelWrap::Tokenize(const Napi::CallbackInfo &info) {
    return llmnode::Tokenize(info, Get(info.Env()));
}

Napi::Value ModelWrap::Detokenize(const Napi::CallbackInfo &info) {
    return llmnode::Detokenize(info, Get(info.Env()));
}

Napi::Value ModelWrap::TokenPiece(const Napi::CallbackInfo &info) {
    return llmnode::TokenPiece(info, Get(info.Env()));
}

Napi::Value ModelWrap::FormatChat(const Napi::CallbackInfo &info) {
    return llmnode::FormatChat(info, Get(info.Env()));
}

Napi::Value ModelWrap::ApplyChatTemplate(const Napi::CallbackInfo &info) {
    return llmnode::ApplyChatTemplate(info, Get(info.Env()));
}

Napi::Value ModelWrap::ChatTemplate(const Napi::CallbackInfo &info) {
    return llmnode::ChatTemplate(info, Get(info.Env()));
}

Napi::Value ModelWrap::ParseChat(const Napi::CallbackInfo &info) {
    return llmnode::ParseChat(info, Get(info.Env()));
}

Napi::Value ModelWrap::IsEog(const Napi::CallbackInfo &info) {
    const llm_model *m = Get(info.Env());
    return Napi::Boolean::New(info.Env(), llm_token_is_eog(m, Int32Arg(info, 0)) != 0);
}

Napi::Value ModelWrap::IsSpecial(const Napi::CallbackInfo &info) {
    const llm_model *m = Get(info.Env());
    return Napi::Boolean::New(info.Env(), llm_token_is_special(m, Int32Arg(info, 0)) != 0);
}

// metadata(): [key, value][] in key order (lib/ makes the object).
Napi::Value ModelWrap::Metadata(const Napi::CallbackInfo &info) {
    Napi::Env env = info.Env();
    const llm_model *m = Get(env);
    const int32_t count = llm_model_meta_count(m);
    Napi::Array out = Napi::Array::New(env, static_cast<size_t>(count));
    std::vector<char> key(64), value(64);
    for (int32_t i = 0; i < count; ++i) {
        llm_status s = CallSized(key, [&](char *buf, size_t cap, size_t *n) {
            return llm_model_meta_key(m, i, buf, cap, n);
        });
        if (s != LLM_OK) ThrowLast(env, s);
        const std::string name(key.data(), key.size());
        s = CallSized(value, [&](char *buf, size_t cap, size_t *n) {
            return llm_model_meta_value(m, name.c_str(), buf, cap, n);
        });
        if (s != LLM_OK) ThrowLast(env, s);
        Napi::Array pair = Napi::Array::New(env, 2);
        pair.Set(0u, Napi::String::New(env, name));
        pair.Set(1u, Napi::String::New(env, value.data(), value.size()));
        out.Set(static_cast<uint32_t>(i), pair);
        key.resize(key.capacity()); // reuse the grown buffers
        value.resize(value.capacity());
    }
    return out;
}

// meta(key: string): string | undefined (undefined: the file has no such key).
Napi::Value ModelWrap::Meta(const Napi::CallbackInfo &info) {
    Napi::Env env = info.Env();
    const llm_model *m = Get(env);
    const std::string key = StringArg(info, 0);
    if (key.find('\0') != std::string::npos) return env.Undefined(); // never a key
    std::vector<char> value(64);
    const llm_status s = CallSized(value, [&](char *buf, size_t cap, size_t *n) {
        return llm_model_meta_value(m, key.c_str(), buf, cap, n);
    });
    if (s == LLM_ERR_NOT_FOUND) return env.Undefined();
    if (s != LLM_OK) ThrowLast(env, s);
    return Napi::String::New(env, value.data(), value.size());
}

// createSession(contextLength: number, threads: number, kvType: number): NativeSession
Napi::Value ModelWrap::CreateSession(const Napi::CallbackInfo &info) {
    Napi::Env env = info.Env();
    llm_model *m = Get(env);
    llm_context_params params = llm_context_default_params();
    params.n_ctx = Int32Arg(info, 0);
    params.n_threads = Int32Arg(info, 1);
    params.kv_type = Int32Arg(info, 2);
    llm_context *ctx = nullptr;
    const llm_status s = llm_context_new(m, &params, &ctx);
    if (s != LLM_OK) ThrowLast(env, s);
    return SessionWrap::NewInstance(env, std::make_shared<ContextHandle>(handle_, ctx));
}

// embed(ids: Int32Array, pooling: number, normalize: boolean, threads: number)
//   -> Promise<Float32Array> (embed_worker.h)
Napi::Value ModelWrap::Embed(const Napi::CallbackInfo &info) {
    Napi::Env env = info.Env();
    Get(env);
    return EmbedAsync(env, handle_, TokensArg(info, 0), Int32Arg(info, 1), BoolArg(info, 2) ? 1 : 0,
                      Int32Arg(info, 3));
}

// defaultPooling(): the LLM_POOLING_* the model asks for.
Napi::Value ModelWrap::DefaultPooling(const Napi::CallbackInfo &info) {
    return Napi::Number::New(info.Env(), llm_model_default_pooling(Get(info.Env())));
}

void ModelWrap::Dispose(const Napi::CallbackInfo &) {
    handle_.reset(); // sessions still holding the model keep it alive
}

Napi::Value LoadModel(const Napi::CallbackInfo &info) {
    Napi::Env env = info.Env();
    std::string path = StringArg(info, 0);
    const bool has_tokenizer = !info[1].IsNull() && !info[1].IsUndefined();
    std::string tokenizer = has_tokenizer ? StringArg(info, 1) : std::string();
    // llm.h takes C strings: a NUL would silently cut the path short.
    if (path.find('\0') != std::string::npos || tokenizer.find('\0') != std::string::npos)
        Throw(env, LLM_ERR_INVALID_ARGUMENT, "a path contains a NUL character");
    auto *worker = new LoadWorker(env, std::move(path), has_tokenizer, std::move(tokenizer),
                                  Int32Arg(info, 2), BoolArg(info, 3));
    Napi::Promise promise = worker->Promise();
    worker->Queue(); // deletes itself after OnOK/OnError
    return promise;
}

} // namespace llmnode
