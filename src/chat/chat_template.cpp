#include "chat/chat_template.h"

#include "common/error.h"
#include "tokenizer/tokenizer.h"

namespace llm {

std::string format_chat(const Model &model, const std::vector<ChatMessage> &messages,
                        bool add_assistant) {
    const Tokenizer &tok = *model.tokenizer;
    if (tok.find_special("<|im_start|>") < 0 || tok.find_special("<|im_end|>") < 0)
        fail(LLM_ERR_UNSUPPORTED, "this model has no chat template (no <|im_start|> token)");
    std::string out;
    for (const ChatMessage &m : messages) {
        if (m.role.empty()) fail(LLM_ERR_INVALID_ARGUMENT, "chat message with an empty role");
        out += "<|im_start|>";
        out += m.role;
        out += '\n';
        out += m.content;
        out += "<|im_end|>\n";
    }
    if (add_assistant) out += "<|im_start|>assistant\n";
    return out;
}

} // namespace llm
