// Checked reads of native method arguments. lib/ validates user input first;
// these keep a wrong internal call from reaching the engine.
#pragma once

#include <napi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "llm.h"

namespace llmnode {

std::string StringArg(const Napi::CallbackInfo &info, size_t i);
int32_t Int32Arg(const Napi::CallbackInfo &info, size_t i);
bool BoolArg(const Napi::CallbackInfo &info, size_t i);
Napi::Function FunctionArg(const Napi::CallbackInfo &info, size_t i);
// An Int32Array of token ids.
std::vector<llm_token> TokensArg(const Napi::CallbackInfo &info, size_t i);

// Token ids as a JS number[].
Napi::Array TokensToArray(Napi::Env env, const std::vector<llm_token> &tokens);

} // namespace llmnode
