// Chat templates from the model itself through the C API: llm_chat_apply,
// llm_model_chat_template, llm_chat_format on a model with a template, and
// llm_chat_parse on the answer forms of Qwen, DeepSeek and Llama 3.1.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/api_helpers.h"
#include "support/gguf_test_writer.h"
#include "support/test_support.h"

using namespace test;
using OJson = nlohmann::ordered_json;

namespace {

// The call's result as a string, or "ERR <status>: <message>".
std::string apply(const llm_model *m, const std::string &messages,
                  const llm_chat_params *params = nullptr) {
    size_t n = 0;
    llm_status s = llm_chat_apply(m, messages.c_str(), params, nullptr, 0, &n);
    if (s != LLM_OK && s != LLM_ERR_BUFFER_TOO_SMALL)
        return "ERR " + std::to_string(s) + ": " + llm_last_error();
    std::string out(n, '\0');
    s = llm_chat_apply(m, messages.c_str(), params, out.data(), out.size(), &n);
    if (s != LLM_OK) return "ERR " + std::to_string(s) + ": " + llm_last_error();
    return out;
}

OJson parse(const std::string &text) {
    size_t n = 0;
    REQUIRE(llm_chat_parse(nullptr, text.data(), text.size(), nullptr, 0, &n) ==
            LLM_ERR_BUFFER_TOO_SMALL);
    std::string out(n, '\0');
    REQUIRE(llm_chat_parse(nullptr, text.data(), text.size(), out.data(), out.size(), &n) ==
            LLM_OK);
    return OJson::parse(out);
}

// A tiny GGUF model whose tokenizer.chat_template is `tmpl`.
ModelPtr gguf_with_template(const std::string &tmpl) {
    GgufWriter w = make_gguf_model(GgufModelSpec());
    w.add_string("tokenizer.chat_template", tmpl);
    static int counter = 0;
    const std::string path = temp_dir() + "/chat" + std::to_string(counter++) + ".gguf";
    write_file(path, w.build());
    return load_model(path);
}

std::string model_template(const llm_model *m) {
    size_t n = 0;
    llm_model_chat_template(m, nullptr, 0, &n);
    std::string out(n, '\0');
    REQUIRE(llm_model_chat_template(m, out.data(), out.size(), &n) == LLM_OK);
    return out;
}

const char *const kHello = R"([{"role":"user","content":"Hello"}])";

} // namespace

TEST_CASE("chat api: qwen2-tiny renders its own template", "[chat_api]") {
    ModelPtr m = load_model(shared_path("models/qwen2-tiny"));
    auto config = read_json(shared_path("models/qwen2-tiny/tokenizer_config.json"));
    CHECK(model_template(m.get()) == config["chat_template"].get<std::string>());
    CHECK(apply(m.get(), kHello) == "<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n");

    llm_chat_params p = llm_chat_default_params();
    p.add_generation_prompt = 0;
    CHECK(apply(m.get(), kHello, &p) == "<|im_start|>user\nHello<|im_end|>\n");
    // Qwen3's switch: an empty think block when thinking is off.
    p.add_generation_prompt = 1;
    p.extra_vars_json = R"({"enable_thinking":false})";
    CHECK(apply(m.get(), kHello, &p) ==
          "<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n");
    // Tools reach the template.
    p.extra_vars_json = nullptr;
    p.tools_json = R"([{"type":"function","function":{"name":"get_time","parameters":{}}}])";
    const std::string with_tools = apply(m.get(), kHello, &p);
    CHECK(with_tools.find("<tools>") != std::string::npos);
    CHECK(with_tools.find("get_time") != std::string::npos);

    // llm_chat_format goes through the same template.
    llm_chat_message msg = {"user", "Hello"};
    char buf[256];
    size_t n = 0;
    REQUIRE(llm_chat_format(m.get(), &msg, 1, 1, buf, sizeof buf, &n) == LLM_OK);
    CHECK(std::string(buf, n) == "<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n");

    // <|im_end|> ends a generation.
    auto ids = tokenize(m.get(), "<|im_end|>", LLM_TOKENIZE_PARSE_SPECIAL);
    REQUIRE(ids.size() == 1);
    CHECK(llm_token_is_eog(m.get(), ids[0]) == 1);
}

TEST_CASE("chat api: chat_template.jinja takes precedence", "[chat_api]") {
    const std::string dir = temp_dir() + "/qwen-jinja";
    std::filesystem::create_directories(dir);
    for (const char *f : {"config.json", "generation_config.json", "model.safetensors",
                          "tokenizer.json", "tokenizer_config.json"})
        std::filesystem::copy_file(shared_path(std::string("models/qwen2-tiny/") + f),
                                   dir + "/" + f);
    write_file(dir + "/chat_template.jinja",
               "{% for m in messages %}{{ m.role }}: {{ m.content }}{{ eos_token }}{% endfor %}");
    ModelPtr m = load_model(dir);
    CHECK(apply(m.get(), kHello) == "user: Hello<|im_end|>");
}

TEST_CASE("chat api: errors", "[chat_api]") {
    ModelPtr m = load_model(shared_path("models/qwen2-tiny"));
    CHECK(llm_chat_apply(nullptr, kHello, nullptr, nullptr, 0, nullptr) ==
          LLM_ERR_INVALID_ARGUMENT);
    CHECK(llm_chat_apply(m.get(), nullptr, nullptr, nullptr, 0, nullptr) ==
          LLM_ERR_INVALID_ARGUMENT);
    CHECK(apply(m.get(), "[{").rfind("ERR -", 0) == 0);
    CHECK(llm_chat_apply(m.get(), "[{", nullptr, nullptr, 0, nullptr) == LLM_ERR_INVALID_ARGUMENT);
    CHECK(llm_chat_apply(m.get(), R"({"role":"user"})", nullptr, nullptr, 0, nullptr) ==
          LLM_ERR_INVALID_ARGUMENT);
    CHECK(llm_chat_apply(m.get(), R"([{"content":"x"}])", nullptr, nullptr, 0, nullptr) ==
          LLM_ERR_INVALID_ARGUMENT);
    // Nesting is bounded.
    std::string deep = R"([{"role":"user","content":)" + std::string(100000, '[') +
                       std::string(100000, ']') + "}]";
    CHECK(llm_chat_apply(m.get(), deep.c_str(), nullptr, nullptr, 0, nullptr) ==
          LLM_ERR_INVALID_ARGUMENT);

    llm_chat_params p = llm_chat_default_params();
    p.extra_vars_json = "[1]";
    CHECK(llm_chat_apply(m.get(), kHello, &p, nullptr, 0, nullptr) == LLM_ERR_INVALID_ARGUMENT);
    p = llm_chat_default_params();
    p.template_override = "line one\n{% if %}";
    CHECK(llm_chat_apply(m.get(), kHello, &p, nullptr, 0, nullptr) == LLM_ERR_TEMPLATE);
    CHECK(std::string(llm_last_error()).find("line 2") != std::string::npos);
    p.template_override = "{{ raise_exception('no system role') }}";
    CHECK(llm_chat_apply(m.get(), kHello, &p, nullptr, 0, nullptr) == LLM_ERR_TEMPLATE);
    CHECK(std::string(llm_last_error()).find("no system role") != std::string::npos);
    // Runaway templates stop.
    p.template_override = "{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor "
                          "%}{% endfor %}";
    CHECK(llm_chat_apply(m.get(), kHello, &p, nullptr, 0, nullptr) == LLM_ERR_TEMPLATE);
    // An older, smaller params struct: the later fields are absent.
    p = llm_chat_default_params();
    p.struct_size = offsetof(llm_chat_params, tools_json);
    p.template_override = "{{ messages[0].content }}{{ add_generation_prompt }}";
    p.add_generation_prompt = 0;
    CHECK(apply(m.get(), kHello, &p) == "HelloTrue");

    // A model without a template: llm_chat_apply needs one, llm_chat_format
    // keeps its ChatML fallback (UNSUPPORTED without ChatML markers).
    ModelPtr stories = load_stories260k();
    CHECK(model_template(stories.get()).empty());
    CHECK(llm_chat_apply(stories.get(), kHello, nullptr, nullptr, 0, nullptr) ==
          LLM_ERR_UNSUPPORTED);
    p = llm_chat_default_params();
    p.template_override = "{% for m in messages %}[{{ m.role }}] {{ m.content }}{% endfor %}";
    CHECK(apply(stories.get(), kHello, &p) == "[user] Hello");
}

TEST_CASE("chat api: a GGUF model's template and tokens", "[chat_api]") {
    ModelPtr m = gguf_with_template(
        "{{ bos_token }}{% for m in messages %}<{{ m.role }}>{{ m.content }}{{ eos_token }}{% "
        "endfor %}{% if add_generation_prompt %}<assistant>{% endif %}");
    CHECK(apply(m.get(), kHello) == "<s><user>Hello</s><assistant>");
    // Content as a list of parts, and the caller's own bos_token.
    llm_chat_params p = llm_chat_default_params();
    p.extra_vars_json = R"({"bos_token":"[BOS]"})";
    p.template_override = "{{ bos_token }}{{ messages[0].content[0].text }}";
    CHECK(apply(m.get(), R"([{"role":"user","content":[{"type":"text","text":"Hi"}]}])", &p) ==
          "[BOS]Hi");
}

// Every case of the chat template oracle (tests/chat_oracle) through the C
// API: qwen2-tiny's with the model folder's own template and tokens, the
// others with a GGUF model holding the case's template. Hidden tag:
// registered in CTest with the chat_oracle fixture.
TEST_CASE("chat api: llm_chat_apply gives the oracle's bytes", "[.chat_api_oracle]") {
    const char *env = std::getenv("LLM_CHAT_ORACLE_DIR");
    REQUIRE(env);
    std::ifstream in(std::string(env) + "/chat_oracle.json", std::ios::binary);
    REQUIRE(in);
    std::stringstream ss;
    ss << in.rdbuf();
    const OJson oracle = OJson::parse(ss.str());
    ModelPtr qwen = load_model(shared_path("models/qwen2-tiny"));
    std::map<std::string, ModelPtr> models; // by template text
    size_t checked = 0;
    for (const OJson &c : oracle.at("cases")) {
        const std::string name = c.at("name");
        INFO("case " << name);
        const bool own = name.rfind("qwen2-tiny/", 0) == 0;
        const std::string tmpl = c.at("template");
        if (!own && !models.count(tmpl)) models[tmpl] = gguf_with_template(tmpl);
        const llm_model *m = own ? qwen.get() : models[tmpl].get();
        const OJson &ctx = c.at("context");
        OJson extra = OJson::object();
        for (auto it = ctx.begin(); it != ctx.end(); ++it) {
            const std::string &k = it.key();
            if (k == "messages" || k == "add_generation_prompt" || k == "tools" || k == "documents")
                continue;
            // qwen2-tiny's tokens come from its tokenizer_config.json.
            if (own && (k == "bos_token" || k == "eos_token")) continue;
            extra[k] = it.value();
        }
        const std::string extra_json = extra.dump();
        const std::string tools_json = ctx.value("tools", OJson()).dump();
        llm_chat_params p = llm_chat_default_params();
        p.add_generation_prompt = ctx.value("add_generation_prompt", false) ? 1 : 0;
        p.extra_vars_json = extra_json.c_str();
        p.tools_json = tools_json.c_str();
        const std::string got = apply(m, ctx.at("messages").dump(), &p);
        if (c.contains("error"))
            CHECK(got.rfind("ERR " + std::to_string(LLM_ERR_TEMPLATE), 0) == 0);
        else
            CHECK(got == c.at("expected").get<std::string>());
        ++checked;
    }
    CHECK(checked >= 100);
}

TEST_CASE("chat parse: plain answers", "[chat_api]") {
    OJson j = parse("  Paris is the capital.\n");
    CHECK(j["content"] == "Paris is the capital.");
    CHECK(j["reasoning_content"] == "");
    CHECK(j["tool_calls"].empty());
    CHECK(parse("")["content"] == "");
    CHECK(llm_chat_parse(nullptr, nullptr, 1, nullptr, 0, nullptr) == LLM_ERR_INVALID_ARGUMENT);
    // Invalid UTF-8 is written as U+FFFD, not an error.
    CHECK(parse("a\xff")["content"] == "a\xef\xbf\xbd");
}

TEST_CASE("chat parse: think blocks", "[chat_api]") {
    OJson j = parse("<think>\nThe user greets.\n</think>\n\nHello!");
    CHECK(j["reasoning_content"] == "The user greets.");
    CHECK(j["content"] == "Hello!");
    // The prompt opened the block (DeepSeek-R1, Qwen3 thinking).
    j = parse("Counting letters.\n</think>\n\nThree.");
    CHECK(j["reasoning_content"] == "Counting letters.");
    CHECK(j["content"] == "Three.");
    // Unterminated: generation stopped while thinking.
    j = parse("<think>\nStill thinking about");
    CHECK(j["reasoning_content"] == "Still thinking about");
    CHECK(j["content"] == "");
    // Empty block (enable_thinking false).
    j = parse("<think>\n\n</think>\n\nHi.");
    CHECK(j["reasoning_content"] == "");
    CHECK(j["content"] == "Hi.");
}

TEST_CASE("chat parse: tool calls", "[chat_api]") {
    // Qwen / Hermes.
    OJson j = parse("Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": "
                    "{\"city\": \"Paris\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"get_time\", "
                    "\"arguments\": {}}\n</tool_call>");
    CHECK(j["content"] == "Let me check.");
    REQUIRE(j["tool_calls"].size() == 2);
    CHECK(j["tool_calls"][0]["name"] == "get_weather");
    CHECK(j["tool_calls"][0]["arguments"]["city"] == "Paris");
    CHECK(j["tool_calls"][1]["name"] == "get_time");
    CHECK(j["tool_calls"][1]["arguments"] == OJson::object());
    // With reasoning first.
    j = parse("<think>Need weather.</think>\n<tool_call>{\"name\":\"get_weather\",\"arguments\":"
              "\"{\\\"city\\\":\\\"Oslo\\\"}\"}</tool_call>");
    CHECK(j["reasoning_content"] == "Need weather.");
    CHECK(j["content"] == "");
    REQUIRE(j["tool_calls"].size() == 1);
    CHECK(j["tool_calls"][0]["arguments"]["city"] == "Oslo"); // a JSON string decoded
    // Unterminated but complete JSON (generation stopped at the end of turn).
    j = parse("<tool_call>\n{\"name\": \"f\", \"arguments\": {\"x\": 1}}\n");
    REQUIRE(j["tool_calls"].size() == 1);
    CHECK(j["tool_calls"][0]["arguments"]["x"] == 1);
    CHECK(j["content"] == "");
    // Unterminated and cut off: stays text.
    j = parse("<tool_call>\n{\"name\": \"f\", \"argu");
    CHECK(j["tool_calls"].empty());
    CHECK(j["content"] == "<tool_call>\n{\"name\": \"f\", \"argu");
    // Malformed: stays text, later calls still found.
    j = parse("<tool_call>not json</tool_call> and <tool_call>{\"name\":\"g\"}</tool_call>");
    CHECK(j["content"] == "<tool_call>not json</tool_call> and");
    REQUIRE(j["tool_calls"].size() == 1);
    CHECK(j["tool_calls"][0]["name"] == "g");
    // Llama 3.1: the answer is the call.
    j = parse("{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Rome\"}}");
    REQUIRE(j["tool_calls"].size() == 1);
    CHECK(j["tool_calls"][0]["name"] == "get_weather");
    CHECK(j["tool_calls"][0]["arguments"]["city"] == "Rome");
    CHECK(j["content"] == "");
    j = parse("<|python_tag|>{\"name\": \"search\", \"parameters\": {\"q\": \"x\"}}");
    REQUIRE(j["tool_calls"].size() == 1);
    CHECK(j["tool_calls"][0]["name"] == "search");
    // JSON that is not a call stays content.
    j = parse("{\"name\": \"Alice\"}");
    CHECK(j["tool_calls"].empty());
    CHECK(j["content"] == "{\"name\": \"Alice\"}");
    // Deep nesting in a call is refused, not a crash.
    std::string deep = "<tool_call>{\"name\":\"f\",\"arguments\":" + std::string(100000, '[') +
                       std::string(100000, ']') + "}</tool_call>";
    j = parse(deep);
    CHECK(j["tool_calls"].empty());
}
