// How native code creates a wrapper object around a shared handle: the
// handle travels to the JS constructor inside an External (valid for that
// synchronous call only) and the constructor copies the shared_ptr out. A
// constructor called from JS without one throws `hint`.
#pragma once

#include <napi.h>

#include <memory>

#include "errors.h"

namespace llmnode {

template <typename H>
Napi::Object NewWithHandle(Napi::Env env, Napi::FunctionReference &cls, std::shared_ptr<H> handle) {
    return cls.New({Napi::External<std::shared_ptr<H>>::New(env, &handle)});
}

template <typename H>
std::shared_ptr<H> HandleFromConstructor(const Napi::CallbackInfo &info, const char *hint) {
    if (info.Length() != 1 || !info[0].IsExternal())
        Throw(info.Env(), LLM_ERR_INVALID_ARGUMENT, hint);
    return *info[0].As<Napi::External<std::shared_ptr<H>>>().Data();
}

} // namespace llmnode
