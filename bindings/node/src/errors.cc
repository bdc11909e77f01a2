#include "errors.h"

#include "addon_data.h"

namespace llmnode {

Failure Failure::Last(llm_status status) {
    return Failure{status, llm_last_error()};
}

void SetErrorClass(Napi::Env env, Napi::Function error_class) {
    AddonData::Of(env).error_class = Napi::Persistent(error_class);
}

Napi::Value MakeError(Napi::Env env, const Failure &failure) {
    const std::string message =
        failure.message.empty() ? llm_status_str(failure.status) : failure.message;
    Napi::FunctionReference &cls = AddonData::Of(env).error_class;
    if (!cls.IsEmpty())
        return cls.New({Napi::String::New(env, message), Napi::Number::New(env, failure.status)});
    Napi::Object error = Napi::Error::New(env, message).Value();
    error.Set("code", Napi::Number::New(env, failure.status));
    return error;
}

void ThrowLast(Napi::Env env, llm_status status) {
    throw Napi::Error(env, MakeError(env, Failure::Last(status)));
}

void Throw(Napi::Env env, llm_status status, const std::string &message) {
    throw Napi::Error(env, MakeError(env, Failure{status, message}));
}

} // namespace llmnode
