// Hugging Face folders through llm.h: goldens (prompt ids from tokenizer.json,
// greedy ids, logits), chat formatting, and broken folders.
#include <catch2/catch.hpp>

#include <algorithm>

#include <unistd.h>

#include "support/api_helpers.h"
#include "support/test_support.h"

using namespace test;

namespace {

std::string qwen2_tiny() {
    return shared_path("models/qwen2-tiny");
}

// A copy of qwen2-tiny with links to its big files, whose small files a
// test may then break.
std::string qwen2_tiny_copy() {
    auto dir = temp_dir();
    for (const char *name :
         {"model.safetensors", "tokenizer.json", "tokenizer_config.json", "generation_config.json"})
        REQUIRE(symlink((qwen2_tiny() + "/" + name).c_str(), (dir + "/" + name).c_str()) == 0);
    write_file(dir + "/config.json", read_file(qwen2_tiny() + "/config.json"));
    return dir;
}

// Status and message of loading `path`.
std::pair<llm_status, std::string> load_failure(const std::string &path) {
    llm_model *m = reinterpret_cast<llm_model *>(1);
    llm_status s = llm_model_load(path.c_str(), nullptr, &m);
    CHECK(m == nullptr);
    return {s, llm_last_error()};
}

std::vector<float> logits_copy(const llm_context *ctx) {
    size_t n = 0;
    llm_context_copy_logits(ctx, nullptr, 0, &n);
    std::vector<float> out(n);
    REQUIRE(llm_context_copy_logits(ctx, out.data(), out.size(), &n) == LLM_OK);
    return out;
}

} // namespace

TEST_CASE("qwen2-tiny through llm.h: prompt ids, greedy ids and logits", "[golden][hf]") {
    auto model = load_model(qwen2_tiny());
    const llm_model *m = model.get();
    CHECK(std::string(llm_model_arch(m)) == "qwen2");
    CHECK(llm_model_n_vocab(m) == 151936);
    CHECK(llm_model_n_head_kv(m) == 2);
    CHECK(llm_model_n_params(m) == 9816640);
    CHECK(llm_model_weight_type(m) == LLM_WEIGHTS_BF16);
    CHECK(llm_token_is_eog(m, 151645));
    CHECK(llm_token_is_eog(m, 151643));
    auto manifest = read_json(shared_path("golden/qwen2-tiny/manifest.json"));
    for (const auto &name : manifest["prompts"]) {
        const std::string base = shared_path("golden/qwen2-tiny/" + name.get<std::string>());
        auto g = read_json(base + ".json");
        INFO(name);
        const auto prompt = g["prompt_token_ids"].get<std::vector<llm_token>>();
        CHECK(tokenize(m, g["prompt"], LLM_TOKENIZE_PARSE_SPECIAL) == prompt);
        const auto golden_ids = g["generated_token_ids"].get<std::vector<llm_token>>();
        CHECK(greedy(m, prompt, static_cast<int>(prompt.size() + golden_ids.size()) - 1) ==
              golden_ids);

        std::vector<llm_token> tokens = prompt;
        tokens.insert(tokens.end(), golden_ids.begin(), golden_ids.end());
        const auto rows = g["logits_rows"].get<std::vector<int>>();
        auto golden = read_f32_rows(base + ".logits.f32", 151936);
        auto ctx = new_context(m, rows.back() + 1);
        size_t next = 0;
        for (int pos = 0; pos <= rows.back(); ++pos) {
            REQUIRE(llm_forward(ctx.get(), &tokens[static_cast<size_t>(pos)], 1) == LLM_OK);
            if (rows[next] != pos) continue;
            INFO("row " << pos);
            auto logits = logits_copy(ctx.get());
            CHECK(max_abs_diff(logits.data(), golden[next].data(), logits.size()) < 1e-3f);
            ++next;
        }
    }
}

TEST_CASE("qwen2-tiny with weights widened to f32 gives the same logits", "[hf]") {
    auto bf16 = load_model(qwen2_tiny());
    auto f32 = load_model(qwen2_tiny(), nullptr, LLM_WEIGHTS_F32);
    CHECK(llm_model_weight_type(f32.get()) == LLM_WEIGHTS_F32);
    CHECK(llm_model_weight_bytes(f32.get()) > llm_model_weight_bytes(bf16.get()) * 19 / 10);
    auto g = read_json(shared_path("golden/qwen2-tiny/p1_english.json"));
    const auto prompt = g["prompt_token_ids"].get<std::vector<llm_token>>();
    auto a = new_context(bf16.get(), 128), b = new_context(f32.get(), 128);
    REQUIRE(llm_forward(a.get(), prompt.data(), prompt.size()) == LLM_OK);
    REQUIRE(llm_forward(b.get(), prompt.data(), prompt.size()) == LLM_OK);
    CHECK(max_abs_diff(llm_context_logits(a.get()), llm_context_logits(b.get()), 151936) < 1e-4f);
}

TEST_CASE("qwen2-tiny with an fp16 KV cache stays near the fp32 cache", "[hf]") {
    // Along p1_english's prompt and golden continuation, one token at a
    // time: the rounding of keys and values to fp16 moves the logits a
    // little, and the same tokens stay on top.
    auto model = load_model(qwen2_tiny());
    auto g = read_json(shared_path("golden/qwen2-tiny/p1_english.json"));
    std::vector<llm_token> tokens = g["prompt_token_ids"].get<std::vector<llm_token>>();
    const auto generated = g["generated_token_ids"].get<std::vector<llm_token>>();
    tokens.insert(tokens.end(), generated.begin(), generated.end());
    const int32_t n = static_cast<int32_t>(tokens.size());
    auto f32 = new_context(model.get(), n), f16 = new_context(model.get(), n, 1, LLM_KV_F16);
    float worst = 0.0f;
    int same_top = 0;
    for (llm_token t : tokens) {
        REQUIRE(llm_forward(f32.get(), &t, 1) == LLM_OK);
        REQUIRE(llm_forward(f16.get(), &t, 1) == LLM_OK);
        const float *a = llm_context_logits(f32.get()), *b = llm_context_logits(f16.get());
        worst = std::max(worst, max_abs_diff(a, b, 151936));
        same_top += std::max_element(a, a + 151936) - a == std::max_element(b, b + 151936) - b;
    }
    WARN("qwen2-tiny, fp16 KV cache: max |logit - fp32-cache logit| = "
         << worst << " over " << n << " positions; same top token at " << same_top);
    CHECK(worst < 0.1f);
    CHECK(same_top == n);
}

TEST_CASE("qwen2-tiny chat: llm_chat_format rebuilds p3_chat's prompt", "[golden][hf][chat]") {
    auto model = load_model(qwen2_tiny());
    auto g = read_json(shared_path("golden/qwen2-tiny/p3_chat.json"));
    const llm_chat_message msgs[] = {
        {"system", "You are a helpful assistant."},
        {"user", "Can you give me two tips for keeping houseplants alive in winter?"},
        {"assistant", "Sure! Move them closer to a bright window, and water less often."},
        {"user", "What about humidity?"},
    };
    size_t n = 0;
    llm_chat_format(model.get(), msgs, 4, 1, nullptr, 0, &n);
    std::string text(n, '\0');
    REQUIRE(llm_chat_format(model.get(), msgs, 4, 1, text.data(), text.size(), &n) == LLM_OK);
    CHECK(text == g["prompt"].get<std::string>());
    CHECK(tokenize(model.get(), text, LLM_TOKENIZE_PARSE_SPECIAL) ==
          g["prompt_token_ids"].get<std::vector<llm_token>>());
}

TEST_CASE("stories260K-hf through llm.h reproduces llama2.c run.c", "[golden][hf]") {
    auto model = load_model(shared_path("models/stories260K-hf"));
    const llm_model *m = model.get();
    CHECK(std::string(llm_model_arch(m)) == "llama");
    for (const char *name : {"empty", "once_upon", "pigs_punct"}) {
        const std::string base = shared_path(std::string("golden/llama2c/stories260K_") + name);
        auto g = read_json(base + ".json");
        INFO(name);
        const auto prompt = g["prompt_token_ids"].get<std::vector<llm_token>>();
        CHECK(tokenize(m, g["prompt"]) == prompt);
        // run.c stops when the model predicts BOS (golden/stories260K-hf.md).
        auto ids = greedy(m, prompt, g["steps"].get<int>(), {1});
        CHECK(ids == g["generated_token_ids"].get<std::vector<llm_token>>());
        std::vector<llm_token> all = prompt;
        all.insert(all.end(), ids.begin(), ids.end());
        CHECK(detokenize(m, all) + "\n" == g["text"].get<std::string>());
        auto ctx = new_context(m);
        for (const auto &row : read_llama2c_logits(base + ".logits.f32")) {
            REQUIRE(llm_forward(ctx.get(), &row.token, 1) == LLM_OK);
            INFO("pos " << row.pos);
            CHECK(max_abs_diff(llm_context_logits(ctx.get()), row.logits.data(), 512) < 1e-4f);
        }
    }
}

TEST_CASE("broken Hugging Face folders: clear status and message", "[hf][bad]") {
    SECTION("malformed config.json") {
        auto dir = qwen2_tiny_copy();
        write_file(dir + "/config.json", "{\"model_type\": \"qwen2\", \"hidden_size\": ");
        auto [s, msg] = load_failure(dir);
        CHECK(s == LLM_ERR_FORMAT);
        CHECK_THAT(msg, Catch::Contains("config.json: invalid JSON"));
    }
    SECTION("unsupported model_type") {
        auto dir = qwen2_tiny_copy();
        auto config = read_json(dir + "/config.json");
        config["model_type"] = "gemma";
        write_file(dir + "/config.json", config.dump());
        auto [s, msg] = load_failure(dir);
        CHECK(s == LLM_ERR_UNSUPPORTED);
        CHECK_THAT(msg, Catch::Contains("\"model_type\" \"gemma\""));
    }
    SECTION("rope_scaling") {
        auto dir = qwen2_tiny_copy();
        auto config = read_json(dir + "/config.json");
        config["rope_scaling"] = {{"type", "yarn"}, {"factor", 4}};
        write_file(dir + "/config.json", config.dump());
        auto [s, msg] = load_failure(dir);
        CHECK(s == LLM_ERR_UNSUPPORTED);
        CHECK_THAT(msg, Catch::Contains("rope_scaling"));
    }
    SECTION("config.json disagrees with the tensors") {
        auto dir = qwen2_tiny_copy();
        auto config = read_json(dir + "/config.json");
        config["intermediate_size"] = 192;
        write_file(dir + "/config.json", config.dump());
        auto [s, msg] = load_failure(dir);
        CHECK(s == LLM_ERR_BAD_DIMENSIONS);
        CHECK_THAT(msg,
                   Catch::Contains(
                       "gate_proj.weight\" has shape [176, 64] but config.json implies [192, 64]"));
    }
    SECTION("safetensors header length past the end of the file") {
        auto dir = qwen2_tiny_copy();
        std::string bytes = read_file(qwen2_tiny() + "/model.safetensors");
        REQUIRE(unlink((dir + "/model.safetensors").c_str()) == 0);
        write_file(dir + "/model.safetensors", bytes.substr(0, 4096));
        auto [s, msg] = load_failure(dir);
        CHECK(s == LLM_ERR_TRUNCATED);
        CHECK_THAT(msg, Catch::Contains("past the end"));
    }
    SECTION("no config.json") {
        auto dir = temp_dir();
        auto [s, msg] = load_failure(dir);
        CHECK(s == LLM_ERR_NOT_FOUND);
        CHECK_THAT(msg, Catch::Contains("config.json"));
    }
}

TEST_CASE("a prompt longer than one prefill chunk equals token-by-token", "[hf]") {
    // The prompt goes through the layers in chunks of at most 128 tokens
    // (and on AMX CPUs, bf16 weights through the tile kernels): 300 tokens
    // are at least three chunks, each attending to the ones before.
    auto model = load_model(qwen2_tiny());
    std::vector<llm_token> prompt(300);
    for (size_t i = 0; i < prompt.size(); ++i)
        prompt[i] = static_cast<llm_token>((i * 7919 + 13) % 151643);
    auto batch = new_context(model.get(), 512, 2), one = new_context(model.get(), 512);
    REQUIRE(llm_forward(batch.get(), prompt.data(), prompt.size()) == LLM_OK);
    for (llm_token t : prompt)
        REQUIRE(llm_forward(one.get(), &t, 1) == LLM_OK);
    CHECK(max_abs_diff(llm_context_logits(one.get()), llm_context_logits(batch.get()), 151936) <
          1e-4f);
}
