#include "args.h"

#include "errors.h"

namespace llmnode {

namespace {
[[noreturn]] void BadArg(const Napi::CallbackInfo &info, size_t i, const char *expected) {
    Throw(info.Env(), LLM_ERR_INVALID_ARGUMENT,
          "argument " + std::to_string(i) + " must be " + expected);
}
} // namespace

std::string StringArg(const Napi::CallbackInfo &info, size_t i) {
    if (!info[i].IsString()) BadArg(info, i, "a string");
    return info[i].As<Napi::String>().Utf8Value();
}

int32_t Int32Arg(const Napi::CallbackInfo &info, size_t i) {
    if (!info[i].IsNumber()) BadArg(info, i, "a number");
    return info[i].As<Napi::Number>().Int32Value();
}

bool BoolArg(const Napi::CallbackInfo &info, size_t i) {
    if (!info[i].IsBoolean()) BadArg(info, i, "a boolean");
    return info[i].As<Napi::Boolean>().Value();
}

Napi::Function FunctionArg(const Napi::CallbackInfo &info, size_t i) {
    if (!info[i].IsFunction()) BadArg(info, i, "a function");
    return info[i].As<Napi::Function>();
}

std::vector<llm_token> TokensArg(const Napi::CallbackInfo &info, size_t i) {
    if (!info[i].IsTypedArray() ||
        info[i].As<Napi::TypedArray>().TypedArrayType() != napi_int32_array)
        BadArg(info, i, "an Int32Array");
    Napi::Int32Array ids = info[i].As<Napi::Int32Array>();
    return std::vector<llm_token>(ids.Data(), ids.Data() + ids.ElementLength());
}

Napi::Array TokensToArray(Napi::Env env, const std::vector<llm_token> &tokens) {
    Napi::Array out = Napi::Array::New(env, tokens.size());
    for (size_t i = 0; i < tokens.size(); ++i)
        out.Set(static_cast<uint32_t>(i), Napi::Number::New(env, tokens[i]));
    return out;
}

} // namespace llmnode
