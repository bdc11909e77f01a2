// The C API of chat templates from the model itself (since 1.4):
// llm_chat_apply, llm_model_chat_template, llm_chat_parse.
#include "capi/capi_internal.h"
#include "chat/chat_parse.h"
#include "chat/chat_template.h"

using namespace llm::capi;

namespace {

using OJson = nlohmann::ordered_json;

// Template variables come from the caller: nesting is bounded so that
// neither the parser nor the interpreter's conversion recurses without limit.
constexpr int kMaxJsonDepth = 64;

OJson parse_arg(const char *text, const char *what) {
    std::string error;
    OJson j = llm::parse_json_bounded(text, kMaxJsonDepth, &error);
    if (j.is_discarded()) llm::fail(LLM_ERR_INVALID_ARGUMENT, what, ": invalid JSON: ", error);
    return j;
}

llm_status copy_text(const std::string &s, char *buf, size_t cap, size_t *n_out) {
    return copy_out(s.data(), s.size(), 1, buf, cap, n_out);
}

} // namespace

extern "C" {

llm_chat_params llm_chat_default_params(void) {
    llm_chat_params p;
    std::memset(&p, 0, sizeof p);
    p.struct_size = sizeof p;
    p.add_generation_prompt = 1;
    return p;
}

llm_status llm_chat_apply(const llm_model *model, const char *messages_json,
                          const llm_chat_params *params, char *buf, size_t cap, size_t *n_out) {
    if (n_out) *n_out = 0;
    if (!model) return invalid("llm_chat_apply: model is NULL");
    if (!messages_json) return invalid("llm_chat_apply: messages_json is NULL");
    if (!buf && cap) return invalid("llm_chat_apply: buf is NULL but cap > 0");
    return guarded([&] {
        const llm_chat_params p = read_params(params, llm_chat_default_params());
        OJson messages = parse_arg(messages_json, "llm_chat_apply: messages_json");
        if (!messages.is_array())
            llm::fail(LLM_ERR_INVALID_ARGUMENT, "llm_chat_apply: messages_json must be an array");
        for (size_t i = 0; i < messages.size(); ++i)
            if (!messages[i].is_object() || !messages[i].contains("role") ||
                !messages[i]["role"].is_string())
                llm::fail(LLM_ERR_INVALID_ARGUMENT, "llm_chat_apply: message ", i,
                          " is not an object with a string \"role\"");
        // The variables in the order transformers gives them.
        OJson context = OJson::object();
        context["messages"] = std::move(messages);
        context["add_generation_prompt"] = p.add_generation_prompt != 0;
        context["tools"] = nullptr;
        if (p.tools_json && *p.tools_json) {
            OJson tools = parse_arg(p.tools_json, "llm_chat_apply: tools_json");
            if (!tools.is_array() && !tools.is_null())
                llm::fail(LLM_ERR_INVALID_ARGUMENT, "llm_chat_apply: tools_json must be an array");
            context["tools"] = std::move(tools);
        }
        context["documents"] = nullptr;
        if (p.extra_vars_json && *p.extra_vars_json) {
            OJson extra = parse_arg(p.extra_vars_json, "llm_chat_apply: extra_vars_json");
            if (!extra.is_object())
                llm::fail(LLM_ERR_INVALID_ARGUMENT,
                          "llm_chat_apply: extra_vars_json must be an object");
            for (auto it = extra.begin(); it != extra.end(); ++it)
                context[it.key()] = it.value();
        }
        const std::string text = llm::apply_chat_template(
            *model->model, std::move(context), p.template_override ? p.template_override : "");
        return copy_text(text, buf, cap, n_out);
    });
}

llm_status llm_model_chat_template(const llm_model *model, char *buf, size_t cap, size_t *n_out) {
    if (n_out) *n_out = 0;
    if (!model) return invalid("llm_model_chat_template: model is NULL");
    if (!buf && cap) return invalid("llm_model_chat_template: buf is NULL but cap > 0");
    return guarded([&] { return copy_text(model->model->chat_template, buf, cap, n_out); });
}

llm_status llm_chat_parse(const llm_model *model, const char *text, size_t len, char *json_buf,
                          size_t cap, size_t *n_out) {
    (void)model; // the forms are recognised by their markers, whatever the model
    if (n_out) *n_out = 0;
    if (!text && len) return invalid("llm_chat_parse: text is NULL but len > 0");
    if (!json_buf && cap) return invalid("llm_chat_parse: json_buf is NULL but cap > 0");
    return guarded([&] {
        const llm::ParsedChat parsed =
            llm::parse_chat_output(std::string_view(text ? text : "", len));
        // Generated text may hold invalid UTF-8: written as U+FFFD.
        const std::string json =
            llm::chat_output_json(parsed).dump(-1, ' ', false, OJson::error_handler_t::replace);
        return copy_text(json, json_buf, cap, n_out);
    });
}

} // extern "C"
