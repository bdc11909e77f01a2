// llama2.c run.c's own outputs on stories260K: greedy ids, logits and text.
#include <catch2/catch.hpp>

#include "support/api_helpers.h"
#include "support/test_support.h"

using namespace test;

namespace {
const char *const kPrompts[] = {"empty", "once_upon", "pigs_punct"};

std::string golden(const std::string &name, const char *ext) {
    return shared_path("golden/llama2c/stories260K_" + name + ext);
}
} // namespace

TEST_CASE("stories260K prompt tokens equal run.c encode()", "[golden][llama2c]") {
    auto model = load_stories260k();
    for (const char *name : kPrompts) {
        auto g = read_json(golden(name, ".json"));
        INFO(name);
        CHECK(tokenize(model.get(), g["prompt"]) == g["prompt_token_ids"].get<std::vector<int>>());
    }
}

TEST_CASE("stories260K greedy ids equal run.c", "[golden][llama2c]") {
    auto model = load_stories260k();
    for (const char *name : kPrompts) {
        auto g = read_json(golden(name, ".json"));
        INFO(name);
        auto prompt = g["prompt_token_ids"].get<std::vector<int>>();
        auto ids = greedy(model.get(), prompt, g["steps"].get<int>());
        CHECK(ids == g["generated_token_ids"].get<std::vector<int>>());
    }
}

TEST_CASE("stories260K logits match run.c within 1e-4", "[golden][llama2c]") {
    auto model = load_stories260k();
    for (const char *name : kPrompts) {
        auto g = read_json(golden(name, ".json"));
        auto rows = read_llama2c_logits(golden(name, ".logits.f32"));
        REQUIRE(rows.size() == 8);
        auto ctx = new_context(model.get());
        for (const auto &row : rows) {
            INFO(name << " pos " << row.pos);
            REQUIRE(llm_context_position(ctx.get()) == row.pos);
            REQUIRE(llm_forward(ctx.get(), &row.token, 1) == LLM_OK);
            const float *logits = llm_context_logits(ctx.get());
            REQUIRE(logits != nullptr);
            CHECK(max_abs_diff(logits, row.logits.data(), row.logits.size()) < 1e-4f);
        }
    }
}

TEST_CASE("batched prefill gives the same logits as token-by-token", "[golden][llama2c]") {
    auto model = load_stories260k();
    auto g = read_json(golden("pigs_punct", ".json"));
    auto ids = g["prompt_token_ids"].get<std::vector<int>>();
    auto one = new_context(model.get());
    for (llm_token t : ids)
        REQUIRE(llm_forward(one.get(), &t, 1) == LLM_OK);
    auto batch = new_context(model.get(), 0, 2);
    REQUIRE(llm_forward(batch.get(), ids.data(), ids.size()) == LLM_OK);
    // The batch goes through the GEMM kernels, single tokens through the
    // mat-vec ones: the sums run in different orders (~1e-5 apart on some
    // SIMD levels), well inside the 1e-4 that run.c's own builds differ by.
    CHECK(max_abs_diff(llm_context_logits(one.get()), llm_context_logits(batch.get()),
                       static_cast<size_t>(llm_model_n_vocab(model.get()))) < 5e-5f);
}

TEST_CASE("detokenized greedy output equals run.c's printed text", "[golden][llama2c]") {
    auto model = load_stories260k();
    for (const char *name : kPrompts) {
        auto g = read_json(golden(name, ".json"));
        auto ids = g["prompt_token_ids"].get<std::vector<int>>();
        for (int t : g["generated_token_ids"])
            ids.push_back(t);
        INFO(name);
        CHECK(detokenize(model.get(), ids) + "\n" == g["text"].get<std::string>());
    }
}

TEST_CASE("32000-token tokenizer.bin encodes like run.c", "[golden][tokenizer]") {
    // Any llama2.c checkpoint with a 32000 vocab would do; the tokenizer only
    // needs the vocab size, so pair tokenizer.bin with a synthetic header.
    auto g = read_json(shared_path("golden/llama2c/tokenize_32000.json"));
    auto dir = temp_dir();
    // Smallest valid checkpoint of vocab 32000: dim 2, 1 layer, 1 head.
    const int32_t header[7] = {2, 2, 1, 1, 1, 32000, 1};
    // embedding, rms_att, wq, wk, wv, wo, rms_ffn, w1, w2, w3, rms_final, freq_cis
    size_t floats = 32000 * 2 + 2 + 4 + 4 + 4 + 4 + 2 + 4 + 4 + 4 + 2 + 2;
    std::string bytes(reinterpret_cast<const char *>(header), sizeof header);
    bytes.append(floats * 4, '\0');
    write_file(dir + "/vocab32000.bin", bytes);
    auto model = load_model(dir + "/vocab32000.bin", shared_path("models/tokenizer.bin").c_str());
    for (const auto &c : g["cases"]) {
        std::string text = c["text"];
        INFO("text: " << text);
        auto ids = tokenize(model.get(), text);
        CHECK(ids == c["ids"].get<std::vector<int>>());
        if (c.contains("decoded")) {
            CHECK(detokenize(model.get(), ids) == c["decoded"].get<std::string>());
        }
    }
}
