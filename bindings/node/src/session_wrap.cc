#include "session_wrap.h"

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "addon_data.h"
#include "args.h"
#include "errors.h"
#include "handle_passing.h"
#include "sized_call.h"
#include "text_ops.h"

namespace llmnode {

namespace {

// Structured output from the sampler settings (lib/structured_output.js
// builds them): jsonSchema, or grammar with an optional grammarRoot.
void Constrain(Napi::Env env, const Napi::Object &o, llm_sampler *sampler, const llm_model *model) {
    auto text = [&](const char *key, std::string &out) {
        Napi::Value v = o.Get(key);
        if (v.IsUndefined()) return false;
        if (!v.IsString())
            Throw(env, LLM_ERR_INVALID_ARGUMENT, std::string(key) + " must be a string");
        out = v.As<Napi::String>().Utf8Value();
        if (out.find('\0') != std::string::npos)
            Throw(env, LLM_ERR_INVALID_ARGUMENT, std::string(key) + " must not contain NUL");
        return true;
    };
    std::string schema, grammar, root;
    llm_status s = LLM_OK;
    if (text("jsonSchema", schema))
        s = llm_sampler_set_json_schema(sampler, model, schema.c_str());
    else if (text("grammar", grammar))
        s = llm_sampler_set_grammar(sampler, model, grammar.c_str(),
                                    text("grammarRoot", root) ? root.c_str() : nullptr);
    if (s != LLM_OK) ThrowLast(env, s);
}

// Sampler settings from a JS object: absent keys keep llm.h's defaults.
SamplerPtr MakeSampler(Napi::Env env, const Napi::Value &value, const llm_model *model) {
    llm_sampler_params p = llm_sampler_default_params();
    if (!value.IsObject())
        Throw(env, LLM_ERR_INVALID_ARGUMENT, "sampler settings must be an object");
    Napi::Object o = value.As<Napi::Object>();
    // Numbers must be finite, and whole and in range for integer fields.
    auto read = [&](const char *key, auto &field, double lo, double hi) {
        using T = std::remove_reference_t<decltype(field)>;
        Napi::Value v = o.Get(key);
        if (v.IsUndefined()) return;
        const double d = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : NAN;
        const bool whole = !std::is_integral_v<T> || d == std::floor(d);
        if (!(d >= lo && d <= hi) || !whole)
            Throw(env, LLM_ERR_INVALID_ARGUMENT,
                  std::string(key) + " is not a number, not whole, or out of range");
        field = static_cast<T>(d);
    };
    const double int_max = std::numeric_limits<int32_t>::max();
    const double finite = std::numeric_limits<float>::max();
    read("temperature", p.temperature, -finite, finite); // the engine checks the values
    read("topP", p.top_p, -finite, finite);
    read("topK", p.top_k, -int_max, int_max);
    read("minP", p.min_p, -finite, finite);
    read("repeatPenalty", p.repeat_penalty, -finite, finite);
    read("repeatLastN", p.repeat_last_n, -int_max, int_max);
    Napi::Value seed = o.Get("seed");
    if (seed.IsBigInt()) {
        bool lossless = false;
        p.seed = seed.As<Napi::BigInt>().Uint64Value(&lossless);
        if (!lossless) Throw(env, LLM_ERR_INVALID_ARGUMENT, "seed must be within [0, 2^64)");
    } else {
        read("seed", p.seed, 0, 9007199254740991.0); // Number.MAX_SAFE_INTEGER
    }
    llm_sampler *sampler = nullptr;
    const llm_status s = llm_sampler_new(&p, &sampler);
    if (s != LLM_OK) ThrowLast(env, s);
    SamplerPtr owned(sampler, &llm_sampler_free);
    Constrain(env, o, sampler, model);
    return owned;
}

} // namespace

Napi::Function SessionWrap::Define(Napi::Env env) {
    return DefineClass(env, "NativeSession",
                       {
                           InstanceMethod<&SessionWrap::Generate>("generate"),
                           InstanceMethod<&SessionWrap::Position>("position"),
                           InstanceMethod<&SessionWrap::ContextLength>("contextLength"),
                           InstanceMethod<&SessionWrap::Tokens>("tokens"),
                           InstanceMethod<&SessionWrap::IsBusy>("isBusy"),
                           InstanceMethod<&SessionWrap::Reset>("reset"),
                           InstanceMethod<&SessionWrap::Rewind>("rewind"),
                           InstanceMethod<&SessionWrap::Tokenize>("tokenize"),
                           InstanceMethod<&SessionWrap::Detokenize>("detokenize"),
                           InstanceMethod<&SessionWrap::Dispose>("dispose"),
                           InstanceMethod<&SessionWrap::SaveState>("saveState"),
                           InstanceMethod<&SessionWrap::LoadState>("loadState"),
                           InstanceMethod<&SessionWrap::CopyPrefixFrom>("copyPrefixFrom"),
                       });
}

Napi::Object SessionWrap::NewInstance(Napi::Env env, std::shared_ptr<ContextHandle> ctx) {
    return NewWithHandle(env, AddonData::Of(env).session_class, std::move(ctx));
}

SessionWrap::SessionWrap(const Napi::CallbackInfo &info)
    : Napi::ObjectWrap<SessionWrap>(info),
      ctx_(HandleFromConstructor<ContextHandle>(info,
                                                "use model.createSession() to create a session")) {}

SessionWrap::~SessionWrap() {
    if (auto running = active_.lock()) running->Stop();
}

ContextHandle &SessionWrap::Get(Napi::Env env) const {
    if (!ctx_) Throw(env, LLM_ERR_INVALID_ARGUMENT, "the session has been disposed");
    return *ctx_;
}

ContextHandle &SessionWrap::GetIdle(Napi::Env env) const {
    ContextHandle &ctx = Get(env);
    if (ctx.busy)
        Throw(env, LLM_ERR_INVALID_ARGUMENT,
              "the session is generating: wait for the generation to end or stop it first");
    return ctx;
}

// generate(prompt: Int32Array, sampler: object, maxTokens: number,
//          window: number, callback): NativeGeneration
Napi::Value SessionWrap::Generate(const Napi::CallbackInfo &info) {
    Napi::Env env = info.Env();
    const llm_model *model = GetIdle(env).model();
    GenerationRequest request;
    request.prompt = TokensArg(info, 0);
    SamplerPtr sampler = MakeSampler(env, info[1], model);
    request.max_tokens = Int32Arg(info, 2);
    const int32_t window = Int32Arg(info, 3);
    if (request.max_tokens < 0 || window < 1)
        Throw(env, LLM_ERR_INVALID_ARGUMENT, "maxTokens must be >= 0 and window >= 1");
    request.window = static_cast<uint32_t>(window);
    Napi::Function callback = FunctionArg(info, 4);
    std::shared_ptr<Generation> generation =
        Generation::Start(env, ctx_, std::move(sampler), std::move(request), callback);
    active_ = generation;
    return GenerationWrap::NewInstance(env, std::move(generation));
}

Napi::Value SessionWrap::Position(const Napi::CallbackInfo &info) {
    return Napi::Number::New(info.Env(), llm_context_position(GetIdle(info.Env()).get()));
}

Napi::Value SessionWrap::ContextLength(const Napi::CallbackInfo &info) {
    // Fixed at creation: safe to read while generating.
    return Napi::Number::New(info.Env(), llm_context_n_ctx(Get(info.Env()).get()));
}

Napi::Value SessionWrap::Tokens(const Napi::CallbackInfo &info) {
    Napi::Env env = info.Env();
    llm_context *ctx = GetIdle(env).get();
    std::vector<llm_token> ids(static_cast<size_t>(llm_context_position(ctx)));
    const llm_status s = CallSized(ids, [&](llm_token *buf, size_t cap, size_t *n) {
        return llm_context_tokens(ctx, buf, cap, n);
    });
    if (s != LLM_OK) ThrowLast(env, s);
    return TokensToArray(env, ids);
}

Napi::Value SessionWrap::IsBusy(const Napi::CallbackInfo &info) {
    return Napi::Boolean::New(info.Env(), Get(info.Env()).busy);
}

void SessionWrap::Reset(const Napi::CallbackInfo &info) {
    ContextHandle &ctx = GetIdle(info.Env());
    llm_context_reset(ctx.get()); // also drops a pending cancel request
    ctx.cancel_pending = false;
}

void SessionWrap::Rewind(const Napi::CallbackInfo &info) {
    Napi::Env env = info.Env();
    ContextHandle &ctx = GetIdle(env);
    const llm_status s = llm_context_rewind(ctx.get(), Int32Arg(info, 0));
    if (s != LLM_OK) ThrowLast(env, s);
    if (ctx.cancel_pending) ctx.ConsumeStaleCancel(); // there may be room now
}

Napi::Value SessionWrap::Tokenize(const Napi::CallbackInfo &info) {
    return llmnode::Tokenize(info, Get(info.Env()).model());
}

Napi::Value SessionWrap::Detokenize(const Napi::CallbackInfo &info) {
    return llmnode::Detokenize(info, Get(info.Env()).model());
}

void SessionWrap::Dispose(const Napi::CallbackInfo &info) {
    // A running generation holds the context until its worker has stopped.
    if (auto running = active_.lock()) running->Cancel(info.Env());
    active_.reset();
    ctx_.reset();
}

Napi::Function GenerationWrap::Define(Napi::Env env) {
    return DefineClass(env, "NativeGeneration",
                       {
                           InstanceMethod<&GenerationWrap::Pull>("pull"),
                           InstanceMethod<&GenerationWrap::Cancel>("cancel"),
                       });
}

Napi::Object GenerationWrap::NewInstance(Napi::Env env, std::shared_ptr<Generation> generation) {
    return NewWithHandle(env, AddonData::Of(env).generation_class, std::move(generation));
}

GenerationWrap::GenerationWrap(const Napi::CallbackInfo &info)
    : Napi::ObjectWrap<GenerationWrap>(info),
      generation_(HandleFromConstructor<Generation>(info, "use session.generate() to generate")) {}

void GenerationWrap::Pull(const Napi::CallbackInfo &info) {
    const int32_t n = Int32Arg(info, 0);
    if (n > 0) generation_->Pull(info.Env(), static_cast<uint32_t>(n));
}

void GenerationWrap::Cancel(const Napi::CallbackInfo &info) {
    generation_->Cancel(info.Env());
}

} // namespace llmnode
