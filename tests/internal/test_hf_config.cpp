// config.json / generation_config.json parsing: the shared folders' configs,
// defaults, and every unsupported or absurd field named in its error.
#include <catch2/catch.hpp>

#include <cmath>

#include "loaders/hf_config.h"
#include "support/engine_helpers.h"
#include "support/test_support.h"

using namespace test;

namespace {

nlohmann::json qwen2_tiny_config() {
    return read_json(shared_path("models/qwen2-tiny/config.json"));
}

llm::HfConfig parse(const nlohmann::json &j) {
    return llm::parse_hf_config(j.dump(), "config.json");
}

llm::Error parse_error(const nlohmann::json &j) {
    return error_of([&] { parse(j); });
}

} // namespace

TEST_CASE("hf config: qwen2-tiny", "[hf][config]") {
    auto hc = parse(qwen2_tiny_config());
    const llm::ModelConfig &c = hc.model;
    CHECK(c.arch == "qwen2");
    CHECK(c.dim == 64);
    CHECK(c.hidden_dim == 176);
    CHECK(c.n_layers == 2);
    CHECK(c.n_heads == 4);
    CHECK(c.n_kv_heads == 2);
    CHECK(c.head_dim == 16);
    CHECK(c.vocab_size == 151936);
    CHECK(c.max_seq_len == 512);
    CHECK(c.rope_theta == 1e6f);
    CHECK(c.norm_eps == 1e-6f);
    CHECK(c.rope_style == llm::RopeStyle::HalfSplit);
    CHECK(c.qkv_bias);
    CHECK(hc.tie_word_embeddings);
    CHECK(hc.eos_token_ids == std::vector<int32_t>{151643});
}

TEST_CASE("hf config: stories260K-hf (llama, explicit head_dim)", "[hf][config]") {
    auto hc = parse(read_json(shared_path("models/stories260K-hf/config.json")));
    const llm::ModelConfig &c = hc.model;
    CHECK(c.arch == "llama");
    CHECK(c.head_dim == 8);
    CHECK(c.n_kv_heads == 4);
    CHECK(c.norm_eps == 1e-5f);
    CHECK(c.rope_theta == 1e4f);
    CHECK_FALSE(c.qkv_bias);
    CHECK(hc.tie_word_embeddings);
    CHECK(hc.eos_token_ids == std::vector<int32_t>{2});
}

TEST_CASE("hf config: defaults for optional fields", "[hf][config]") {
    auto j = qwen2_tiny_config();
    for (const char *key :
         {"num_key_value_heads", "rope_theta", "rms_norm_eps", "tie_word_embeddings",
          "eos_token_id", "hidden_act", "rope_scaling", "max_position_embeddings", "architectures"})
        j.erase(key);
    j["head_dim"] = nullptr;
    auto hc = parse(j);
    CHECK(hc.model.n_kv_heads == 4);        // = num_attention_heads
    CHECK(hc.model.head_dim == 16);         // hidden_size / heads
    CHECK(hc.model.rope_theta == 10000.0f); // transformers' defaults
    CHECK(hc.model.norm_eps == 1e-6f);
    CHECK(hc.model.max_seq_len == 32768);
    CHECK_FALSE(hc.tie_word_embeddings);
    CHECK(hc.eos_token_ids.empty());
    j["model_type"] = "llama";
    CHECK(parse(j).model.max_seq_len == 2048);
}

TEST_CASE("hf config: head_dim and sliding windows that change nothing", "[hf][config]") {
    auto j = qwen2_tiny_config();
    j["head_dim"] = 32; // q_dim 128 != hidden 64 is allowed
    CHECK(parse(j).model.q_dim() == 128);
    j = qwen2_tiny_config();
    j["use_sliding_window"] = true;
    j["sliding_window"] = 4096; // >= max_position_embeddings 512
    CHECK_NOTHROW(parse(j));
    j["sliding_window"] = 128;
    j["max_window_layers"] = 2; // no layer >= 2 uses the window
    CHECK_NOTHROW(parse(j));
    j["use_sliding_window"] = false;
    j["max_window_layers"] = 0;
    CHECK_NOTHROW(parse(j));
}

TEST_CASE("hf config: eos_token_id forms", "[hf][config]") {
    auto j = qwen2_tiny_config();
    j["eos_token_id"] = {7, 9};
    CHECK(parse(j).eos_token_ids == std::vector<int32_t>{7, 9});
    j["eos_token_id"] = nullptr;
    CHECK(parse(j).eos_token_ids.empty());
    j["eos_token_id"] = -1;
    CHECK(parse_error(j).status() == LLM_ERR_FORMAT);
    j["eos_token_id"] = "x";
    CHECK(parse_error(j).status() == LLM_ERR_FORMAT);
    CHECK(llm::parse_generation_eos(R"({"eos_token_id":[151645,151643]})", "g.json") ==
          std::vector<int32_t>{151645, 151643});
    CHECK(llm::parse_generation_eos(R"({"bos_token_id":1})", "g.json").empty());
    CHECK(error_of([] { llm::parse_generation_eos("{", "g.json"); }).status() == LLM_ERR_FORMAT);
}

TEST_CASE("hf config: unsupported features are named", "[hf][config][bad]") {
    struct Case {
        const char *field;
        std::function<void(nlohmann::json &)> edit;
    };
    const std::vector<Case> cases = {
        {"model_type", [](auto &j) { j["model_type"] = "mistral"; }},
        {"rope_scaling",
         [](auto &j) {
             j["rope_scaling"] = {{"type", "yarn"}, {"factor", 4.0}};
         }},
        {"use_sliding_window",
         [](auto &j) {
             j["use_sliding_window"] = true;
             j["sliding_window"] = 128;
             j["max_window_layers"] = 1;
         }},
        {"use_sliding_window",
         [](auto &j) {
             j["sliding_window"] = 128;
             j["layer_types"] = {"full_attention", "sliding_attention"};
         }},
        {"hidden_act", [](auto &j) { j["hidden_act"] = "gelu"; }},
        {"attention_bias",
         [](auto &j) {
             j["model_type"] = "llama";
             j["attention_bias"] = true;
         }},
        {"mlp_bias",
         [](auto &j) {
             j["model_type"] = "llama";
             j["mlp_bias"] = true;
         }},
        {"quantization_config",
         [](auto &j) {
             j["quantization_config"] = {{"quant_method", "gptq"}};
         }},
        {"architectures", [](auto &j) { j["architectures"] = {"Qwen2ForSequenceClassification"}; }},
    };
    for (const Case &c : cases) {
        auto j = qwen2_tiny_config();
        c.edit(j);
        INFO(c.field << ": " << j.dump());
        auto e = parse_error(j);
        CHECK(e.status() == LLM_ERR_UNSUPPORTED);
        CHECK_THAT(e.what(), Catch::Contains(std::string("\"") + c.field + "\""));
        CHECK_THAT(e.what(), Catch::Contains("config.json"));
    }
}

TEST_CASE("hf config: absurd or inconsistent sizes are rejected before use", "[hf][config][bad]") {
    struct Case {
        const char *field;
        nlohmann::json value;
        const char *message;
    };
    const std::vector<Case> cases = {
        {"hidden_size", 1000000000, "hidden_size = 1000000000 is outside"},
        {"hidden_size", 0, "hidden_size = 0"},
        {"intermediate_size", -5, "intermediate_size = -5"},
        {"num_hidden_layers", 100000, "num_hidden_layers"},
        {"num_attention_heads", 3, "is not a multiple of num_key_value_heads"},
        {"num_key_value_heads", 3, "is not a multiple of num_key_value_heads"},
        {"vocab_size", 18446744073709551615ull, "vocab_size"},
        {"max_position_embeddings", 1ll << 40, "max_position_embeddings"},
        {"head_dim", 7, "head_dim 7 is odd"},
        {"head_dim", 1 << 20, "head_dim"},
        {"rope_theta", -1.0, "rope_theta"},
        {"rms_norm_eps", 0.0, "rms_norm_eps"},
    };
    for (const Case &c : cases) {
        auto j = qwen2_tiny_config();
        j[c.field] = c.value;
        INFO(c.field << " = " << c.value.dump());
        auto e = parse_error(j);
        CHECK(e.status() == LLM_ERR_BAD_DIMENSIONS);
        CHECK_THAT(e.what(), Catch::Contains(c.message));
    }
    auto j = qwen2_tiny_config();
    j["hidden_size"] = 66; // not a multiple of 4 heads, no head_dim
    CHECK_THAT(parse_error(j).what(), Catch::Contains("not a multiple of num_attention_heads"));
}

TEST_CASE("hf config: malformed files are FORMAT errors", "[hf][config][bad]") {
    auto text_error = [](const std::string &text) {
        return error_of([&] { llm::parse_hf_config(text, "config.json"); });
    };
    CHECK(text_error("{\"model_type\": \"qwen2\",").status() == LLM_ERR_FORMAT);
    CHECK_THAT(text_error("{\"model_type\": \"qwen2\",").what(), Catch::Contains("invalid JSON"));
    CHECK(text_error("[]").status() == LLM_ERR_FORMAT);
    CHECK(text_error("").status() == LLM_ERR_FORMAT);
    auto j = qwen2_tiny_config();
    j.erase("model_type");
    CHECK_THAT(parse_error(j).what(), Catch::Contains("no \"model_type\""));
    j = qwen2_tiny_config();
    j.erase("hidden_size");
    CHECK_THAT(parse_error(j).what(), Catch::Contains("no \"hidden_size\""));
    j = qwen2_tiny_config();
    j["hidden_size"] = "64";
    CHECK(parse_error(j).status() == LLM_ERR_FORMAT);
    j = qwen2_tiny_config();
    j["tie_word_embeddings"] = 1;
    CHECK(parse_error(j).status() == LLM_ERR_FORMAT);
    CHECK_THAT(text_error(R"({"model_type":"qwen2","model_type":"llama"})").what(),
               Catch::Contains("duplicate"));
}

TEST_CASE("hf config: qwen3 (explicit head_dim, q/k norms, no biases)", "[hf][config]") {
    auto j = qwen2_tiny_config();
    j["model_type"] = "qwen3";
    j["architectures"] = {"Qwen3ForCausalLM"};
    j["head_dim"] = 32; // 4 heads x 32 = 128-wide q on a 64-wide model
    auto hc = parse(j);
    const llm::ModelConfig &c = hc.model;
    CHECK(c.arch == "qwen3");
    CHECK(c.qk_norm);
    CHECK_FALSE(c.qkv_bias);
    CHECK(c.q_dim() == 128);
    CHECK(c.dim == 64);
    CHECK(c.rope_style == llm::RopeStyle::HalfSplit);
    j["attention_bias"] = true;
    CHECK(parse(j).model.qkv_bias);
}

TEST_CASE("hf config: llama3 rope scaling becomes frequency divisors", "[hf][config]") {
    auto j = read_json(shared_path("models/stories260K-hf/config.json"));
    j["rope_theta"] = 500000.0;
    j["rope_scaling"] = {{"rope_type", "llama3"},
                         {"factor", 32.0},
                         {"low_freq_factor", 1.0},
                         {"high_freq_factor", 4.0},
                         {"original_max_position_embeddings", 8192}};
    j["head_dim"] = 64;
    j["num_attention_heads"] = 1;
    j["num_key_value_heads"] = 1;
    const llm::ModelConfig c = parse(j).model;
    REQUIRE(c.rope_freq_divisors.size() == 32);
    // Short wavelengths keep their frequency, long ones are divided by the
    // factor, and those between blend the two, rising with the wavelength.
    CHECK(c.rope_freq_divisors.front() == Approx(1.0f));
    CHECK(c.rope_freq_divisors.back() == Approx(32.0f));
    const double pi = 3.14159265358979323846;
    for (size_t i = 0; i < 32; ++i) {
        const double wavelen = 2 * pi * std::pow(500000.0, 2.0 * i / 64);
        const float d = c.rope_freq_divisors[i];
        if (wavelen < 8192 / 4.0) CHECK(d == Approx(1.0f));
        if (wavelen > 8192 / 1.0) CHECK(d == Approx(32.0f));
        if (i > 0) CHECK(d >= c.rope_freq_divisors[i - 1]);
    }
    j["rope_scaling"] = {{"rope_type", "default"}};
    CHECK(parse(j).model.rope_freq_divisors.empty());
    j["rope_scaling"] = {{"rope_type", "llama3"}, {"factor", 0.5}};
    CHECK(parse_error(j).status() == LLM_ERR_BAD_DIMENSIONS);
    j["rope_scaling"] = "llama3";
    CHECK(parse_error(j).status() == LLM_ERR_FORMAT);
}
