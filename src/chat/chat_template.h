// Chat templates: turn (role, content) messages into the prompt text an
// instruct model was trained on.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model.h"

namespace llm {

struct ChatMessage {
    std::string role;
    std::string content;
};

// The model's own template when it has one (see apply_chat_template), else
// ChatML ("<|im_start|>role\ncontent<|im_end|>\n"), used by Qwen. When the
// first message is not a system message and the model has a default system
// prompt, that prompt opens the chat (as Qwen2/2.5's templates do). Throws
// UNSUPPORTED for models whose vocabulary has no chat markers.
std::string format_chat(const Model &model, const std::vector<ChatMessage> &messages,
                        bool add_assistant);

// The default system prompt a ChatML Jinja template writes when the chat
// has none: the literal in '<|im_start|>system\n...<|im_end|>\n', with its
// Jinja string escapes resolved. "" if the template has no such literal.
// Used by the hand-written ChatML fallback.
std::string chat_default_system(const std::string &jinja_template);

// Gives a loaded model (its tokenizer set) its own Jinja chat template and
// the bos/eos token texts the template sees: sets chat_template,
// chat_default_system, and makes the end-of-turn markers the template writes
// (<|im_end|>, <|eot_id|>, <|eom_id|>, <end_of_turn>, <|end|>) end a
// generation when the vocabulary has them as special tokens.
void set_model_chat_template(Model &model, std::string jinja_template, std::string bos_token,
                             std::string eos_token);

// The prompt for a conversation given as a JSON context object (messages,
// tools, add_generation_prompt and any extra variables): the model's template
// (or `template_override` when not empty) is rendered with bos_token and
// eos_token added unless the context sets them. TEMPLATE if the template
// fails, UNSUPPORTED if the model has no template and none is given.
std::string apply_chat_template(const Model &model, nlohmann::ordered_json context,
                                const std::string &template_override = "");

} // namespace llm
