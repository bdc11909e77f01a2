#include "chat/chat_template.h"

#include <algorithm>

#include "chat/jinja.h"
#include "common/error.h"
#include "tokenizer/tokenizer.h"

namespace llm {

std::string format_chat(const Model &model, const std::vector<ChatMessage> &messages,
                        bool add_assistant) {
    if (!model.chat_template.empty()) {
        nlohmann::ordered_json context = {{"messages", nlohmann::ordered_json::array()},
                                          {"add_generation_prompt", add_assistant}};
        for (const ChatMessage &m : messages) {
            if (m.role.empty()) fail(LLM_ERR_INVALID_ARGUMENT, "chat message with an empty role");
            context["messages"].push_back({{"role", m.role}, {"content", m.content}});
        }
        return apply_chat_template(model, std::move(context));
    }
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

void set_model_chat_template(Model &model, std::string jinja_template, std::string bos_token,
                             std::string eos_token) {
    model.chat_default_system = chat_default_system(jinja_template);
    for (const char *marker :
         {"<|im_end|>", "<|eot_id|>", "<|eom_id|>", "<end_of_turn>", "<|end|>"}) {
        if (jinja_template.find(marker) == std::string::npos || !model.tokenizer) continue;
        const int32_t id = model.tokenizer->find_special(marker);
        if (id >= 0 && id < model.config.vocab_size &&
            std::find(model.eog_tokens.begin(), model.eog_tokens.end(), id) ==
                model.eog_tokens.end())
            model.eog_tokens.push_back(id);
    }
    model.chat_template = std::move(jinja_template);
    model.chat_bos_token = std::move(bos_token);
    model.chat_eos_token = std::move(eos_token);
}

std::string apply_chat_template(const Model &model, nlohmann::ordered_json context,
                                const std::string &template_override) {
    const std::string &tmpl = template_override.empty() ? model.chat_template : template_override;
    if (tmpl.empty())
        fail(LLM_ERR_UNSUPPORTED,
             "this model has no chat template (give one as template_override)");
    if (!context.is_object())
        fail(LLM_ERR_INVALID_ARGUMENT, "chat: the template variables must be a JSON object");
    if (!context.contains("bos_token") && !model.chat_bos_token.empty())
        context["bos_token"] = model.chat_bos_token;
    if (!context.contains("eos_token") && !model.chat_eos_token.empty())
        context["eos_token"] = model.chat_eos_token;
    return render_chat_template(tmpl, context);
}

} // namespace llm
