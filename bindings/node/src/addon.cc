// The libllm Node.js addon: native classes and constants that lib/ builds
// the public API on. Everything reaches the engine through llm.h only.
#include <napi.h>

#include "addon_data.h"
#include "args.h"
#include "errors.h"
#include "handles.h"
#include "llm.h"
#include "model_wrap.h"
#include "session_wrap.h"

namespace llmnode {

namespace {

// Status codes by name, from the macros in llm.h.
Napi::Object StatusTable(Napi::Env env) {
    Napi::Object s = Napi::Object::New(env);
#define LLMNODE_STATUS(name) s.Set(#name, Napi::Number::New(env, LLM_##name))
    LLMNODE_STATUS(OK);
    LLMNODE_STATUS(ERR_INVALID_ARGUMENT);
    LLMNODE_STATUS(ERR_NOT_FOUND);
    LLMNODE_STATUS(ERR_IO);
    LLMNODE_STATUS(ERR_TRUNCATED);
    LLMNODE_STATUS(ERR_SIZE_MISMATCH);
    LLMNODE_STATUS(ERR_BAD_DIMENSIONS);
    LLMNODE_STATUS(ERR_FORMAT);
    LLMNODE_STATUS(ERR_TOKENIZER_MISMATCH);
    LLMNODE_STATUS(ERR_UNSUPPORTED);
    LLMNODE_STATUS(ERR_TOKEN_OUT_OF_RANGE);
    LLMNODE_STATUS(ERR_CONTEXT_FULL);
    LLMNODE_STATUS(ERR_BUFFER_TOO_SMALL);
    LLMNODE_STATUS(ERR_CANCELLED);
    LLMNODE_STATUS(ERR_OUT_OF_MEMORY);
    LLMNODE_STATUS(ERR_INTERNAL);
    LLMNODE_STATUS(ERR_TEMPLATE);
    LLMNODE_STATUS(ERR_GRAMMAR);
    LLMNODE_STATUS(ERR_STATE_MISMATCH);
#undef LLMNODE_STATUS
    return s;
}

// Weight types by name ("auto", "f32", ..., "q6_k"): the library's own name
// table (llm_weight_type_name), which ends with the first unnamed value.
Napi::Object WeightTypeTable(Napi::Env env) {
    Napi::Object w = Napi::Object::New(env);
    for (int32_t type = 0;; ++type) {
        const char *name = llm_weight_type_name(type);
        if (name[0] == '\0') break;
        w.Set(name, type);
    }
    return w;
}

Napi::Object KvTypeTable(Napi::Env env) {
    Napi::Object k = Napi::Object::New(env);
    k.Set("f32", LLM_KV_F32);
    k.Set("f16", LLM_KV_F16);
    return k;
}

Napi::Value StatusString(const Napi::CallbackInfo &info) {
    return Napi::String::New(info.Env(), llm_status_str(Int32Arg(info, 0)));
}

void SetErrorClassJs(const Napi::CallbackInfo &info) {
    SetErrorClass(info.Env(), FunctionArg(info, 0));
}

Napi::Value LiveHandles(const Napi::CallbackInfo &info) {
    const LiveCounts counts = live_counts();
    Napi::Object out = Napi::Object::New(info.Env());
    out.Set("models", static_cast<double>(counts.models));
    out.Set("contexts", static_cast<double>(counts.contexts));
    return out;
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
    auto *data = new AddonData;
    env.SetInstanceData(data); // deleted with the environment
    Napi::Function model = ModelWrap::Define(env);
    Napi::Function session = SessionWrap::Define(env);
    Napi::Function generation = GenerationWrap::Define(env);
    data->model_class = Napi::Persistent(model);
    data->session_class = Napi::Persistent(session);
    data->generation_class = Napi::Persistent(generation);

    exports.Set("version", llm_version());
    exports.Set("versionNumber", llm_version_number());
    exports.Set("systemInfo", llm_system_info());
    exports.Set("headerVersion", LLM_VERSION_STRING);
    exports.Set("status", StatusTable(env));
    exports.Set("weightTypes", WeightTypeTable(env));
    exports.Set("kvTypes", KvTypeTable(env));
    exports.Set("TOKENIZE_ADD_SPECIAL", LLM_TOKENIZE_ADD_SPECIAL);
    exports.Set("TOKENIZE_PARSE_SPECIAL", LLM_TOKENIZE_PARSE_SPECIAL);
    exports.Set("DETOKENIZE_RENDER_SPECIAL", LLM_DETOKENIZE_RENDER_SPECIAL);
    exports.Set("TOKEN_NONE", LLM_TOKEN_NONE);
    exports.Set("statusString", Napi::Function::New<StatusString>(env, "statusString"));
    exports.Set("setErrorClass", Napi::Function::New<SetErrorClassJs>(env, "setErrorClass"));
    exports.Set("loadModel", Napi::Function::New<LoadModel>(env, "loadModel"));
    exports.Set("liveHandles", Napi::Function::New<LiveHandles>(env, "liveHandles"));
    exports.Set("NativeModel", model);
    exports.Set("NativeSession", session);
    exports.Set("NativeGeneration", generation);
    return exports;
}

} // namespace

} // namespace llmnode

// NODE_API_MODULE wants an unqualified name.
static Napi::Object InitLlmNode(Napi::Env env, Napi::Object exports) {
    return llmnode::Init(env, exports);
}

NODE_API_MODULE(llm_node, InitLlmNode)
