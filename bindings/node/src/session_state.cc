// NativeSession's saved states and shared prefixes: saveState() -> Buffer,
// loadState(Uint8Array), copyPrefixFrom(NativeSession, n). All synchronous:
// they copy memory (the KV cache of the positions in use), no model runs.
#include <string>
#include <vector>

#include "addon_data.h"
#include "args.h"
#include "errors.h"
#include "session_wrap.h"
#include "sized_call.h"

namespace llmnode {

Napi::Value SessionWrap::SaveState(const Napi::CallbackInfo &info) {
    Napi::Env env = info.Env();
    llm_context *ctx = GetIdle(env).get();
    size_t size = 0;
    llm_status s = llm_context_state_size(ctx, &size);
    if (s != LLM_OK) ThrowLast(env, s);
    std::vector<uint8_t> state(size);
    s = CallSized(state, [&](uint8_t *buf, size_t cap, size_t *n) {
        return llm_context_state_save(ctx, buf, cap, n);
    });
    if (s != LLM_OK) ThrowLast(env, s);
    return Napi::Buffer<uint8_t>::Copy(env, state.data(), state.size());
}

void SessionWrap::LoadState(const Napi::CallbackInfo &info) {
    Napi::Env env = info.Env();
    llm_context *ctx = GetIdle(env).get();
    if (!info[0].IsTypedArray() ||
        info[0].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array)
        Throw(env, LLM_ERR_INVALID_ARGUMENT, "the state must be a Buffer or Uint8Array");
    Napi::Uint8Array bytes = info[0].As<Napi::Uint8Array>();
    const llm_status s = llm_context_state_load(ctx, bytes.Data(), bytes.ByteLength());
    if (s != LLM_OK) ThrowLast(env, s);
}

// copyPrefixFrom(source: NativeSession, n: number)
void SessionWrap::CopyPrefixFrom(const Napi::CallbackInfo &info) {
    Napi::Env env = info.Env();
    llm_context *dst = GetIdle(env).get();
    if (!info[0].IsObject() ||
        !info[0].As<Napi::Object>().InstanceOf(AddonData::Of(env).session_class.Value()))
        Throw(env, LLM_ERR_INVALID_ARGUMENT, "the source must be a Session");
    const SessionWrap *source = SessionWrap::Unwrap(info[0].As<Napi::Object>());
    const llm_context *src = source->GetIdle(env).get();
    const llm_status s = llm_context_copy_prefix(dst, src, Int32Arg(info, 1));
    if (s != LLM_OK) ThrowLast(env, s);
}

} // namespace llmnode
