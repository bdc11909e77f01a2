// libllm against llama.cpp on the GGUF files llm-make-model writes
// (tests/gguf_oracle/): the fixtures gguf_models and gguf_oracle.setup make
// the files (LLM_GGUF_MODELS_DIR) and llama.cpp's answers on them, through
// node-llama-cpp (LLM_GGUF_ORACLE_DIR/gguf_oracle.json). Here: every
// tokenizer id equals llama.cpp's; teacher-forced on the same tokens,
// libllm's top-1 equals llama.cpp's wherever llama.cpp's top-1/top-2
// probability margin is clear (llama, qwen2, qwen3 and gemma3 files); the
// stories260K GGUF reproduces run.c.
// Hidden ([.gguf_oracle]): run through CTest's gguf_oracle.compare.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "support/api_helpers.h"
#include "support/test_support.h"

using namespace test;

namespace {

// Where libllm's top-1 must equal llama.cpp's: llama.cpp's p1 - p2 above
// kClearMargin and, for quantized weights, its top-1/top-2 logit gap above
// kQuantGap. Both sides quantize activations for quantized weights (llama.cpp
// to Q8_0/Q8_K blocks, libllm to its own Q8 blocks), which moves logits by up
// to ~1 on these peaked models (measured: <= 0.95); with float weights the
// logits stay within kFloatLogits of each other (measured: <= 0.17,
// llama.cpp's KV cache being fp16 and its bf16/f16 products rounding the
// activations too).
constexpr double kClearMargin = 0.05;
constexpr double kQuantGap = 1.0;
constexpr double kFloatLogits = 0.25, kQuantLogits = 1.5;

bool quantized(const std::string &file) {
    return file.find("-q") != std::string::npos;
}

std::string dir_from(const char *var, const char *fallback) {
    const char *env = std::getenv(var);
    return env && *env ? std::string(env) : std::string(LLM_BUILD_DIR) + "/" + fallback;
}

std::string models_dir() {
    return dir_from("LLM_GGUF_MODELS_DIR", "gguf_models");
}

const nlohmann::json &oracle() {
    static const nlohmann::json j =
        read_json(dir_from("LLM_GGUF_ORACLE_DIR", "gguf_oracle") + "/gguf_oracle.json");
    return j;
}

std::string show(const std::vector<llm_token> &ids) {
    std::ostringstream s;
    for (size_t i = 0; i < ids.size(); ++i)
        s << (i ? " " : "") << ids[i];
    return s.str();
}

size_t argmax(const float *x, size_t n) {
    return static_cast<size_t>(std::max_element(x, x + n) - x);
}

} // namespace

TEST_CASE("GGUF tokenizers give llama.cpp's ids", "[.gguf_oracle]") {
    for (const auto &kv : oracle()["models"].items()) {
        const std::string name = kv.key();
        const nlohmann::json &m = kv.value();
        auto model = load_model(models_dir() + "/" + name);
        int mismatches = 0;
        for (const auto &c : m["tokenize"]) {
            const std::string text = c["text"];
            const bool special = c["special"];
            const auto want = c["ids"].get<std::vector<llm_token>>();
            const int32_t flags = special ? LLM_TOKENIZE_PARSE_SPECIAL : 0;
            const auto got = tokenize(model.get(), text, flags);
            // With ADD_SPECIAL: BOS first exactly when llama.cpp adds it.
            std::vector<llm_token> want_bos = want;
            if (m["add_bos"].get<bool>())
                want_bos.insert(want_bos.begin(), m["bos"].get<llm_token>());
            const auto got_bos = tokenize(model.get(), text, flags | LLM_TOKENIZE_ADD_SPECIAL);
            if (got != want || got_bos != want_bos) {
                ++mismatches;
                INFO(name << " text \"" << text << "\" special " << special);
                CHECK(show(got) == show(want));
                CHECK(show(got_bos) == show(want_bos));
            }
        }
        INFO(name);
        CHECK(mismatches == 0);
    }
}

TEST_CASE("GGUF models predict llama.cpp's top-1, teacher-forced", "[.gguf_oracle]") {
    for (const auto &kv : oracle()["models"].items()) {
        const std::string name = kv.key();
        const nlohmann::json &tf = kv.value()["teacher_forced"];
        const auto tokens = tf["tokens"].get<std::vector<llm_token>>();
        const auto &positions = tf["positions"];
        REQUIRE(positions.size() == tokens.size());
        auto model = load_model(models_dir() + "/" + name);
        const size_t n_vocab = static_cast<size_t>(llm_model_n_vocab(model.get()));
        auto ctx = new_context(model.get(), 0, 2);
        size_t compared = 0, agreed = 0, agreed_all = 0;
        double max_diff = 0; // |libllm's logit - llama.cpp's| for llama.cpp's top-2
        std::string first_disagreement;
        for (size_t i = 0; i < tokens.size(); ++i) {
            REQUIRE(llm_forward(ctx.get(), &tokens[i], 1) == LLM_OK);
            const float *logits = llm_context_logits(ctx.get());
            REQUIRE(logits != nullptr);
            const auto &p = positions[i];
            for (const char *k : {"1", "2"})
                max_diff = std::max(
                    max_diff,
                    std::abs(static_cast<double>(logits[p[std::string("top") + k].get<size_t>()]) -
                             p[std::string("logit") + k].get<double>()));
            const size_t top1 = argmax(logits, n_vocab);
            const bool same = top1 == p["top1"].get<size_t>();
            agreed_all += same;
            if (p["p1"].get<double>() - p["p2"].get<double>() <= kClearMargin) continue;
            if (quantized(name) &&
                p["logit1"].get<double>() - p["logit2"].get<double>() <= kQuantGap)
                continue;
            ++compared;
            agreed += same;
            if (!same && first_disagreement.empty()) {
                std::ostringstream s;
                s << "position " << i << ": libllm " << top1 << " (logit " << logits[top1]
                  << "), llama.cpp " << p["top1"] << " (logit " << p["logit1"] << ", p " << p["p1"]
                  << " vs " << p["p2"] << "); libllm's logit for llama.cpp's top-1 "
                  << logits[p["top1"].get<size_t>()];
                first_disagreement = s.str();
            }
        }
        INFO(name << ": " << agreed << " of " << compared << " clear positions agree ("
                  << agreed_all << " of " << tokens.size() << " in all), logits at most "
                  << max_diff << " apart; " << first_disagreement);
        CHECK(compared * 5 >= tokens.size() * 2); // not vacuous
        CHECK(agreed == compared);
        CHECK(max_diff <= (quantized(name) ? kQuantLogits : kFloatLogits));
    }
}

TEST_CASE("llama.cpp keeps the f32 file's top-1 on the quantized ones", "[.gguf_oracle]") {
    // The writer and the quantizers seen through llama.cpp alone: each
    // quantized file against the f32 file of the same model, where the f32
    // top-1 is clear. stories260K (trained weights) keeps it in every type;
    // the random tiny256-llama is fragile under 4- and 5-bit noise (llama.cpp
    // itself keeps only 45-80% there), so only its 6- and 8-bit files and
    // the 16-bit floats are held to a bar; the same for the random Qwen3,
    // Llama 3 and Gemma 3 (q4_k_m: 60-70%).
    const auto &models = oracle()["models"];
    for (const std::string base :
         {"stories260K", "tiny256-llama", "qwen3-tiny", "llama3-tiny", "gemma3-tiny"}) {
        const std::string f32 = base + "-f32.gguf";
        if (!models.contains(f32)) continue;
        const auto &ref = models[f32]["teacher_forced"];
        for (const auto &kv : models.items()) {
            const std::string name = kv.key();
            if (name == f32 || name.compare(0, base.size() + 1, base + "-") != 0) continue;
            const auto &tf = kv.value()["teacher_forced"];
            REQUIRE(tf["tokens"] == ref["tokens"]);
            size_t compared = 0, agreed = 0;
            for (size_t i = 0; i < ref["positions"].size(); ++i) {
                const auto &r = ref["positions"][i];
                if (r["p1"].get<double>() - r["p2"].get<double>() <= 0.2) continue;
                ++compared;
                agreed += r["top1"] == tf["positions"][i]["top1"];
            }
            const bool fragile = base != "stories260K" && (name.find("q4") != std::string::npos ||
                                                           name.find("q5") != std::string::npos);
            INFO(name << ": " << agreed << " of " << compared << " clear f32 positions agree");
            CHECK(compared > 10);
            if (fragile)
                WARN(name << ": llama.cpp keeps " << agreed << " of " << compared
                          << " clear f32 top-1s (not checked)");
            else
                CHECK(static_cast<double>(agreed) >= 0.9 * static_cast<double>(compared));
        }
    }
}

TEST_CASE("llama.cpp follows the reference outputs on the converted GGUFs", "[.gguf_oracle]") {
    // The writer alone, through llama.cpp: stories260K's f32 file means the
    // checkpoint (q/k rows unpermuted for llama.cpp's adjacent-pair RoPE) if
    // llama.cpp's top-1 is run.c's next id at every generated position;
    // qwen2-tiny's bf16 file (its own values; rows as they are for NEOX
    // RoPE, biases) if llama.cpp's top-1 is the PyTorch reference's argmax
    // at every position where llama.cpp's top-2 is not within 0.1 (its bf16
    // products round the activations to bf16).
    const auto &models = oracle()["models"];
    for (const auto &kv : models.items()) {
        if (!kv.value().contains("golden")) continue;
        const std::string name = kv.key();
        const bool llama2c = name == "stories260K-f32.gguf";
        for (const auto &ref : kv.value()["golden"].items()) {
            auto g =
                read_json(shared_path(llama2c ? "golden/llama2c/stories260K_" + ref.key() + ".json"
                                              : "golden/qwen2-tiny/" + ref.key() + ".json"));
            auto ids = g["prompt_token_ids"].get<std::vector<llm_token>>();
            const size_t n_prompt = ids.size();
            for (llm_token t : g["generated_token_ids"])
                ids.push_back(t);
            const auto &got = ref.value();
            REQUIRE(got.size() == ids.size());
            size_t compared = 0, agree = 0;
            for (size_t i = 0; i < got.size(); ++i) {
                llm_token want;
                if (llama2c) { // run.c's next id, from the first prediction on
                    if (i + 1 < n_prompt || i + 1 >= ids.size()) continue;
                    want = ids[i + 1];
                } else {
                    if (got[i][1].get<double>() <= 0.1) continue;
                    want = g["argmax_per_row"][i].get<llm_token>();
                }
                ++compared;
                agree += got[i][0].get<llm_token>() == want;
            }
            INFO(name << " " << ref.key() << ": " << agree << " of " << compared
                      << " positions agree");
            CHECK(compared * 5 >= (ids.size() - (llama2c ? n_prompt : 0)) * 4); // most
            CHECK(agree == compared);
        }
    }
}

TEST_CASE("the stories260K f32 GGUF reproduces run.c's greedy ids", "[.gguf_oracle]") {
    auto model = load_model(models_dir() + "/stories260K-f32.gguf");
    for (const char *prompt : {"empty", "once_upon", "pigs_punct"}) {
        auto g =
            read_json(shared_path(std::string("golden/llama2c/stories260K_") + prompt + ".json"));
        INFO(prompt);
        const auto ids = g["prompt_token_ids"].get<std::vector<llm_token>>();
        CHECK(tokenize(model.get(), g["prompt"]) == ids);
        // run.c stops at BOS.
        CHECK(greedy(model.get(), ids, g["steps"].get<int>(), {1}) ==
              g["generated_token_ids"].get<std::vector<llm_token>>());
    }
}
