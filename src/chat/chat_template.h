// Chat templates: turn (role, content) messages into the prompt text an
// instruct model was trained on.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "model/model.h"

namespace llm {

struct ChatMessage {
    std::string role;
    std::string content;
};

// ChatML ("<|im_start|>role\ncontent<|im_end|>\n"), used by Qwen. Throws
// UNSUPPORTED for models whose vocabulary has no chat markers.
std::string format_chat(const Model &model, const std::vector<ChatMessage> &messages,
                        bool add_assistant);

} // namespace llm
