#include "text_ops.h"

#include <string>
#include <vector>

#include "args.h"
#include "errors.h"
#include "sized_call.h"

namespace llmnode {

Napi::Value Tokenize(const Napi::CallbackInfo &info, const llm_model *model) {
    const std::string text = StringArg(info, 0);
    const int32_t flags = Int32Arg(info, 1);
    std::vector<llm_token> ids(text.size() + 4); // a token covers at least one byte
    llm_status s = CallSized(ids, [&](llm_token *buf, size_t cap, size_t *n) {
        return llm_tokenize(model, text.data(), text.size(), flags, buf, cap, n);
    });
    if (s != LLM_OK) ThrowLast(info.Env(), s);
    return TokensToArray(info.Env(), ids);
}

Napi::Value Detokenize(const Napi::CallbackInfo &info, const llm_model *model) {
    const std::vector<llm_token> ids = TokensArg(info, 0);
    const int32_t flags = Int32Arg(info, 1);
    std::vector<char> text(ids.size() * 8 + 16);
    llm_status s = CallSized(text, [&](char *buf, size_t cap, size_t *n) {
        return llm_detokenize(model, ids.data(), ids.size(), flags, buf, cap, n);
    });
    if (s != LLM_OK) ThrowLast(info.Env(), s);
    return Napi::String::New(info.Env(), text.data(), text.size());
}

Napi::Value TokenPiece(const Napi::CallbackInfo &info, const llm_model *model) {
    const llm_token id = Int32Arg(info, 0);
    std::vector<char> bytes(32);
    llm_status s = CallSized(bytes, [&](char *buf, size_t cap, size_t *n) {
        return llm_token_to_piece(model, id, buf, cap, n);
    });
    if (s != LLM_OK) ThrowLast(info.Env(), s);
    return Napi::Buffer<char>::Copy(info.Env(), bytes.data(), bytes.size());
}

Napi::Value FormatChat(const Napi::CallbackInfo &info, const llm_model *model) {
    Napi::Env env = info.Env();
    if (!info[0].IsArray()) Throw(env, LLM_ERR_INVALID_ARGUMENT, "messages must be an array");
    Napi::Array list = info[0].As<Napi::Array>();
    const bool add_assistant = BoolArg(info, 1);
    // The strings must outlive the llm_chat_message pointers into them.
    std::vector<std::string> strings;
    strings.reserve(2 * list.Length());
    for (uint32_t i = 0; i < list.Length(); ++i) {
        Napi::Value item = list.Get(i);
        if (!item.IsObject())
            Throw(env, LLM_ERR_INVALID_ARGUMENT,
                  "messages[" + std::to_string(i) + "] is not an object");
        for (const char *key : {"role", "content"}) {
            Napi::Value v = item.As<Napi::Object>().Get(key);
            if (!v.IsString())
                Throw(env, LLM_ERR_INVALID_ARGUMENT,
                      "messages[" + std::to_string(i) + "]." + key + " must be a string");
            strings.push_back(v.As<Napi::String>().Utf8Value());
            if (strings.back().find('\0') != std::string::npos) // llm.h takes C strings
                Throw(env, LLM_ERR_INVALID_ARGUMENT,
                      "messages[" + std::to_string(i) + "]." + key + " contains a NUL character");
        }
    }
    std::vector<llm_chat_message> messages;
    for (size_t i = 0; i < strings.size(); i += 2)
        messages.push_back({strings[i].c_str(), strings[i + 1].c_str()});
    std::vector<char> text(256);
    llm_status s = CallSized(text, [&](char *buf, size_t cap, size_t *n) {
        return llm_chat_format(model, messages.data(), messages.size(), add_assistant ? 1 : 0, buf,
                               cap, n);
    });
    if (s != LLM_OK) ThrowLast(env, s);
    return Napi::String::New(env, text.data(), text.size());
}

} // namespace llmnode
