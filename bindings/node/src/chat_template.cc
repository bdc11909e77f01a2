#include "chat_template.h"

#include <optional>
#include <string>
#include <vector>

#include "args.h"
#include "errors.h"
#include "sized_call.h"

namespace llmnode {

namespace {

// A string argument, or nothing for null/undefined. llm.h takes C strings,
// so an embedded NUL is refused rather than silently cutting the text.
std::optional<std::string> OptionalCString(const Napi::CallbackInfo &info, size_t i,
                                           const char *what) {
    if (info[i].IsNull() || info[i].IsUndefined()) return std::nullopt;
    std::string s = StringArg(info, i);
    if (s.find('\0') != std::string::npos)
        Throw(info.Env(), LLM_ERR_INVALID_ARGUMENT,
              std::string(what) + " contains a NUL character");
    return s;
}

const char *CStr(const std::optional<std::string> &s) {
    return s ? s->c_str() : nullptr;
}

} // namespace

Napi::Value ApplyChatTemplate(const Napi::CallbackInfo &info, const llm_model *model) {
    Napi::Env env = info.Env();
    const std::optional<std::string> messages = OptionalCString(info, 0, "the messages");
    if (!messages) Throw(env, LLM_ERR_INVALID_ARGUMENT, "messages must be given");
    const std::optional<std::string> tools = OptionalCString(info, 1, "the tools");
    const std::optional<std::string> vars = OptionalCString(info, 2, "the template variables");
    const bool add_generation_prompt = BoolArg(info, 3);
    const std::optional<std::string> tmpl = OptionalCString(info, 4, "the template");
    llm_chat_params params = llm_chat_default_params();
    params.template_override = CStr(tmpl);
    params.tools_json = CStr(tools);
    params.extra_vars_json = CStr(vars);
    params.add_generation_prompt = add_generation_prompt ? 1 : 0;
    std::vector<char> text(1024);
    const llm_status s = CallSized(text, [&](char *buf, size_t cap, size_t *n) {
        return llm_chat_apply(model, messages->c_str(), &params, buf, cap, n);
    });
    if (s != LLM_OK) ThrowLast(env, s);
    return Napi::String::New(env, text.data(), text.size());
}

Napi::Value ChatTemplate(const Napi::CallbackInfo &info, const llm_model *model) {
    std::vector<char> text(1024);
    const llm_status s = CallSized(text, [&](char *buf, size_t cap, size_t *n) {
        return llm_model_chat_template(model, buf, cap, n);
    });
    if (s != LLM_OK) ThrowLast(info.Env(), s);
    return Napi::String::New(info.Env(), text.data(), text.size());
}

Napi::Value ParseChat(const Napi::CallbackInfo &info, const llm_model *model) {
    const std::string text = StringArg(info, 0);
    std::vector<char> json(text.size() + 256);
    const llm_status s = CallSized(json, [&](char *buf, size_t cap, size_t *n) {
        return llm_chat_parse(model, text.data(), text.size(), buf, cap, n);
    });
    if (s != LLM_OK) ThrowLast(info.Env(), s);
    return Napi::String::New(info.Env(), json.data(), json.size());
}

} // namespace llmnode
