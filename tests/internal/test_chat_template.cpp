// ChatML formatting and the default system prompt taken from a model's
// Jinja chat template.
#include <catch2/catch.hpp>

#include "chat/chat_template.h"
#include "support/test_support.h"
#include "tokenizer/tokenizer.h"

using namespace test;

namespace {

// The chat-marker part of a tokenizer: all format_chat asks for.
class ChatMarkers : public llm::Tokenizer {
  public:
    int32_t vocab_size() const override { return 2; }
    std::vector<int32_t> encode(std::string_view, bool, bool) const override { return {}; }
    std::string piece(int32_t) const override { return ""; }
    void decode_append(llm::DecodeState &, int32_t, bool, std::string &) const override {}
    bool is_special(int32_t) const override { return true; }
    int32_t bos() const override { return -1; }
    int32_t eos() const override { return 1; }
    size_t max_piece_bytes() const override { return 12; }
    int32_t find_special(std::string_view text) const override {
        return text == "<|im_start|>" ? 0 : text == "<|im_end|>" ? 1 : -1;
    }
};

// The system-prompt branches of Qwen2.5-Instruct's template (the Jinja
// source, as tokenizer_config.json holds it once JSON-decoded).
const char *const kQwen25Template = R"({%- if tools %}
    {{- '<|im_start|>system\n' }}
    {%- if messages[0]['role'] == 'system' %}
        {{- messages[0]['content'] }}
    {%- else %}
        {{- 'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.' }}
    {%- endif %}
{%- else %}
    {%- if messages[0]['role'] == 'system' %}
        {{- '<|im_start|>system\n' + messages[0]['content'] + '<|im_end|>\n' }}
    {%- else %}
        {{- '<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n' }}
    {%- endif %}
{%- endif %})";

} // namespace

TEST_CASE("chat: the default system prompt comes from the template", "[chat]") {
    CHECK(llm::chat_default_system(kQwen25Template) ==
          "You are Qwen, created by Alibaba Cloud. You are a helpful assistant.");
    // Qwen2 style, double quotes and escapes.
    CHECK(
        llm::chat_default_system(
            R"({% if loop.first and messages[0]['role'] != 'system' %}{{ "<|im_start|>system\nYou\'re \"nice\".<|im_end|>\n" }}{% endif %})") ==
        "You're \"nice\".");
    // qwen2-tiny ships Qwen3's template, which has no default system prompt.
    auto config = read_json(shared_path("models/qwen2-tiny/tokenizer_config.json"));
    CHECK(llm::chat_default_system(config["chat_template"].get<std::string>()).empty());
    CHECK(llm::chat_default_system("").empty());
    CHECK(llm::chat_default_system("'<|im_start|>system\\n").empty());
}

TEST_CASE("chat: ChatML with and without a default system prompt", "[chat]") {
    llm::Model model;
    model.tokenizer = std::make_unique<ChatMarkers>();
    const std::vector<llm::ChatMessage> user = {{"user", "Hi"}};
    CHECK(llm::format_chat(model, user, true) ==
          "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n");
    model.chat_default_system = "Be brief.";
    CHECK(llm::format_chat(model, user, false) ==
          "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n");
    // A system message of the caller's (llm-run -y) replaces the default.
    CHECK(llm::format_chat(model, {{"system", "Be long."}, {"user", "Hi"}}, false) ==
          "<|im_start|>system\nBe long.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n");
}
