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

// ChatML ("<|im_start|>role\ncontent<|im_end|>\n"), used by Qwen. When the
// first message is not a system message and the model has a default system
// prompt, that prompt opens the chat (as Qwen2/2.5's templates do). Throws
// UNSUPPORTED for models whose vocabulary has no chat markers.
std::string format_chat(const Model &model, const std::vector<ChatMessage> &messages,
                        bool add_assistant);

// The default system prompt a ChatML Jinja template writes when the chat
// has none: the literal in '<|im_start|>system\n...<|im_end|>\n', with its
// Jinja string escapes resolved. "" if the template has no such literal.
// libllm does not run Jinja; this is the one piece of the template that
// differs between the ChatML models it serves.
std::string chat_default_system(const std::string &jinja_template);

} // namespace llm
