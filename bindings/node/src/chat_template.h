// The 1.4 chat-template calls on a model: llm_chat_apply,
// llm_model_chat_template and llm_chat_parse. JSON goes in and out as
// strings; lib/chat.js builds and reads it.
#pragma once

#include <napi.h>

#include "llm.h"

namespace llmnode {

// applyChatTemplate(messagesJson: string, toolsJson: string|null,
//   varsJson: string|null, addGenerationPrompt: boolean,
//   template: string|null): string
Napi::Value ApplyChatTemplate(const Napi::CallbackInfo &info, const llm_model *model);
// chatTemplate(): string ("" when the model has none)
Napi::Value ChatTemplate(const Napi::CallbackInfo &info, const llm_model *model);
// parseChat(text: string): string (llm_chat_parse's JSON)
Napi::Value ParseChat(const Napi::CallbackInfo &info, const llm_model *model);

} // namespace llmnode
