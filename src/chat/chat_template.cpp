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
    auto add = [&](const std::string &role, const std::string &content) {
        out += "<|im_start|>";
        out += role;
        out += '\n';
        out += content;
        out += "<|im_end|>\n";
    };
    if (!model.chat_default_system.empty() &&
        (messages.empty() || messages.front().role != "system"))
        add("system", model.chat_default_system);
    for (const ChatMessage &m : messages) {
        if (m.role.empty()) fail(LLM_ERR_INVALID_ARGUMENT, "chat message with an empty role");
        add(m.role, m.content);
    }
    if (add_assistant) out += "<|im_start|>assistant\n";
    return out;
}

namespace {

// Reads the rest of a Jinja string literal that started with `quote`, from
// `i` up to `stop` (which must come before the literal closes). Escapes are
// resolved. False if the literal closes first or `stop` never comes.
bool read_literal_until(const std::string &s, size_t i, char quote, const std::string &stop,
                        std::string &out) {
    while (i < s.size()) {
        if (s.compare(i, stop.size(), stop) == 0) return true;
        char ch = s[i];
        if (ch == quote) return false;
        if (ch == '\\' && i + 1 < s.size()) {
            char e = s[i + 1];
            out += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
            i += 2;
            continue;
        }
        out += ch;
        ++i;
    }
    return false;
}

} // namespace

std::string chat_default_system(const std::string &jinja_template) {
    const std::string open = "<|im_start|>system";
    for (size_t at = jinja_template.find(open); at != std::string::npos;
         at = jinja_template.find(open, at + 1)) {
        // The literal must start right before the marker: '<|im_start|>...
        if (at == 0) continue;
        const char quote = jinja_template[at - 1];
        if (quote != '\'' && quote != '"') continue;
        std::string text;
        if (!read_literal_until(jinja_template, at + open.size(), quote, "<|im_end|>", text))
            continue;
        if (text.empty() || text[0] != '\n') continue;
        text.erase(0, 1);
        if (!text.empty()) return text;
    }
    return "";
}

} // namespace llm
