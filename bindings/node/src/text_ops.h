// Text operations on a model, shared by the Model and Session wrappers (a
// session keeps working after its Model object was disposed).
#pragma once

#include <napi.h>

#include "llm.h"

namespace llmnode {

// tokenize(text: string, flags: number): number[]
Napi::Value Tokenize(const Napi::CallbackInfo &info, const llm_model *model);
// detokenize(ids: Int32Array, flags: number): string
Napi::Value Detokenize(const Napi::CallbackInfo &info, const llm_model *model);
// tokenPiece(id: number): Buffer (raw bytes, may be part of a UTF-8 sequence)
Napi::Value TokenPiece(const Napi::CallbackInfo &info, const llm_model *model);
// formatChat(messages: {role, content}[], addAssistant: boolean): string
Napi::Value FormatChat(const Napi::CallbackInfo &info, const llm_model *model);

} // namespace llmnode
