// libllm statuses as JS errors: instances of the JS LlmError class (registered
// by lib/errors.js) with `code` = the llm_status number.
#pragma once

#include <napi.h>

#include <string>

#include "llm.h"

namespace llmnode {

// A failed call, captured where it failed: llm_last_error() is thread-local,
// so worker threads read it right after the call and carry it back.
struct Failure {
    llm_status status = LLM_OK;
    std::string message;

    // The status of the call that just failed on this thread, with its details.
    static Failure Last(llm_status status);
};

// Makes the JS class used for errors known to the addon.
void SetErrorClass(Napi::Env env, Napi::Function error_class);

// An LlmError object for `failure` (the status text when the message is empty).
Napi::Value MakeError(Napi::Env env, const Failure &failure);

// Throws an LlmError for the call that just failed on this (the JS) thread.
[[noreturn]] void ThrowLast(Napi::Env env, llm_status status);

// Throws an LlmError with a message of our own.
[[noreturn]] void Throw(Napi::Env env, llm_status status, const std::string &message);

} // namespace llmnode
