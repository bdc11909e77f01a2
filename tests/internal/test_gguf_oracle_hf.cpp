// The Hugging Face folders of the oracle's random Qwen3, Llama 3 and Gemma 3
// models (tests/gguf_oracle/make_models.cmake writes each as an f32 folder
// and as GGUF files of the same weights) against llama.cpp on the f32 GGUF:
// teacher-forced, libllm's top-1 on the folder equals llama.cpp's wherever
// llama.cpp's top-1/top-2 probability margin is clear. The folders hold no
// tokenizer (the GGUFs carry tok512), so the weights are loaded alone.
// Hidden ([.gguf_oracle]): run through CTest's gguf_oracle.compare_hf.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "loaders/hf_loader.h"
#include "loaders/loader.h"
#include "support/engine_helpers.h"
#include "support/test_support.h"

using namespace test;

namespace {

std::string dir_from(const char *var, const char *fallback) {
    const char *env = std::getenv(var);
    return env && *env ? std::string(env) : std::string(LLM_BUILD_DIR) + "/" + fallback;
}

} // namespace

TEST_CASE("HF folders predict llama.cpp's top-1 on the same weights as GGUF", "[.gguf_oracle]") {
    const nlohmann::json oracle =
        read_json(dir_from("LLM_GGUF_ORACLE_DIR", "gguf_oracle") + "/gguf_oracle.json");
    const std::string models = dir_from("LLM_GGUF_MODELS_DIR", "gguf_models");
    for (const std::string arch : {"qwen3", "llama3", "gemma3"}) {
        const std::string gguf = arch + "-tiny-f32.gguf";
        INFO(gguf);
        REQUIRE(oracle["models"].contains(gguf));
        const auto &tf = oracle["models"][gguf]["teacher_forced"];
        const auto tokens = tf["tokens"].get<std::vector<int32_t>>();
        const auto &positions = tf["positions"];
        REQUIRE(positions.size() == tokens.size());
        auto model = llm::load_hf_weights(models + "/" + arch + "-tiny-hf", llm::LoadOptions{});
        std::vector<int32_t> rows(tokens.size());
        for (size_t i = 0; i < rows.size(); ++i)
            rows[i] = static_cast<int32_t>(i);
        const auto logits = teacher_forced_logits(*model, tokens, rows);
        size_t compared = 0, agreed = 0;
        double max_diff = 0; // for llama.cpp's top-2
        std::string first_disagreement;
        for (size_t i = 0; i < tokens.size(); ++i) {
            const auto &p = positions[i];
            const std::vector<float> &l = logits[i];
            for (const char *k : {"1", "2"})
                max_diff = std::max(
                    max_diff,
                    std::abs(static_cast<double>(l[p[std::string("top") + k].get<size_t>()]) -
                             p[std::string("logit") + k].get<double>()));
            if (p["p1"].get<double>() - p["p2"].get<double>() <= 0.05) continue;
            const size_t top1 =
                static_cast<size_t>(std::max_element(l.begin(), l.end()) - l.begin());
            ++compared;
            const bool same = top1 == p["top1"].get<size_t>();
            agreed += same;
            if (!same && first_disagreement.empty()) {
                std::ostringstream s;
                s << "position " << i << ": libllm " << top1 << ", llama.cpp " << p["top1"];
                first_disagreement = s.str();
            }
        }
        INFO(agreed << " of " << compared << " clear positions agree, logits at most " << max_diff
                    << " apart; " << first_disagreement);
        CHECK(compared * 5 >= tokens.size() * 2); // not vacuous
        CHECK(agreed == compared);
        CHECK(max_diff <= 0.25); // llama.cpp's fp16 KV cache rounds
    }
}
