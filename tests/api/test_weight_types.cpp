// Weights converted at load (bf16, f16, Q8_0), and an fp16 KV cache,
// against fp32 on stories260K.
//
// stories260K's greedy path has near-ties: along run.c's output the fp32
// top-1 logit leads by only 0.0009 at one step of pigs_punct and 0.004 at
// others, far below what any 8-bit weight format preserves (bf16's logit
// error is ~0.1). So free-running text diverges at one of the first such
// ties (for Q8_0: after 114, 67-110 and 35-45 tokens of the three prompts,
// the kernels' summation order deciding which tie). The weights' rounding
// alone does it: stories260K's matrices rounded through Q8_0 and back to
// fp32, run with fp32 activations on every kernel level, diverge after 114,
// 110 and 45 tokens, so no activation format would reach 200. What is
// checked instead, over the first 200 generated tokens of every golden
// prompt: fed run.c's tokens (teacher forcing), the converted model picks
// run.c's next token at every step that is not a near-tie, misses few
// steps in all, and its logits stay close to fp32's.
//
// stories260K's w_down has 172 columns, not a multiple of 32: under Q8_0
// it stays fp32 (everything else is quantized).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "support/api_helpers.h"
#include "support/test_support.h"

using namespace test;

namespace {

const char *const kPrompts[] = {"empty", "once_upon", "pigs_punct"};
constexpr size_t kSteps = 200;

struct PathStats {
    int steps = 0, misses = 0;
    float max_logit_diff = 0.0f;    // vs fp32, over every step
    float max_missed_margin = 0.0f; // fp32's top-1 lead where the model picked otherwise
};

// Runs `model` (with a KV cache of kv_type) and `f32` side by side along
// run.c's greedy output.
PathStats along_golden_paths(const llm_model *model, int32_t kv_type, const llm_model *f32) {
    PathStats s;
    const size_t vocab = static_cast<size_t>(llm_model_n_vocab(f32));
    for (const char *name : kPrompts) {
        auto g =
            read_json(shared_path(std::string("golden/llama2c/stories260K_") + name + ".json"));
        auto prompt = g["prompt_token_ids"].get<std::vector<int>>();
        auto gen = g["generated_token_ids"].get<std::vector<int>>();
        auto cm = new_context(model, 0, 1, kv_type), cf = new_context(f32);
        REQUIRE(llm_forward(cm.get(), prompt.data(), prompt.size()) == LLM_OK);
        REQUIRE(llm_forward(cf.get(), prompt.data(), prompt.size()) == LLM_OK);
        for (size_t i = 0; i < std::min(kSteps, gen.size()); ++i) {
            const float *lm = llm_context_logits(cm.get()), *lf = llm_context_logits(cf.get());
            s.max_logit_diff = std::max(s.max_logit_diff, max_abs_diff(lm, lf, vocab));
            const llm_token want = gen[i];
            const size_t picked = static_cast<size_t>(std::max_element(lm, lm + vocab) - lm);
            float runner_up = -INFINITY;
            for (size_t j = 0; j < vocab; ++j)
                if (j != static_cast<size_t>(want)) runner_up = std::max(runner_up, lf[j]);
            ++s.steps;
            if (picked != static_cast<size_t>(want)) {
                ++s.misses;
                s.max_missed_margin = std::max(s.max_missed_margin, lf[want] - runner_up);
            }
            REQUIRE(llm_forward(cm.get(), &want, 1) == LLM_OK);
            REQUIRE(llm_forward(cf.get(), &want, 1) == LLM_OK);
        }
    }
    return s;
}

void check_paths(const llm_model *model, int32_t kv_type, const char *label, float max_diff,
                 float tie, int max_misses) {
    auto f32 = load_stories260k(LLM_WEIGHTS_F32);
    const PathStats s = along_golden_paths(model, kv_type, f32.get());
    WARN("stories260K " << label << ": max |logit - fp32 logit| = " << s.max_logit_diff << "; "
                        << s.misses << " of " << s.steps
                        << " teacher-forced steps pick another token, where fp32 leads by at "
                           "most "
                        << s.max_missed_margin);
    CHECK(s.steps >= 3 * 200 - 10); // pigs_punct has 215 tokens, the others more
    CHECK(s.max_logit_diff < max_diff);
    CHECK(s.max_missed_margin < tie);
    CHECK(s.misses <= max_misses);
}

void check_weight_type(int32_t type, const char *label, float max_diff, float tie, int max_misses) {
    auto model = load_stories260k(type);
    REQUIRE(llm_model_weight_type(model.get()) == type);
    check_paths(model.get(), LLM_KV_F32, label, max_diff, tie, max_misses);
}

} // namespace

TEST_CASE("Q8_0 weights pick run.c's tokens except at near-ties", "[golden][quant]") {
    check_weight_type(LLM_WEIGHTS_Q8_0, "Q8_0", 1.0f, 0.25f, 18);
}

TEST_CASE("bf16 weights pick run.c's tokens except at near-ties", "[golden][quant]") {
    check_weight_type(LLM_WEIGHTS_BF16, "bf16", 0.25f, 0.1f, 6);
}

TEST_CASE("f16 weights pick run.c's tokens except at near-ties", "[golden][quant]") {
    check_weight_type(LLM_WEIGHTS_F16, "f16", 0.05f, 0.02f, 3);
}

TEST_CASE("an fp16 KV cache picks run.c's tokens except at near-ties", "[golden][quant]") {
    auto model = load_stories260k(LLM_WEIGHTS_F32);
    check_paths(model.get(), LLM_KV_F16, "fp32 weights, fp16 KV cache", 0.05f, 0.01f, 3);
}

TEST_CASE("Q8_0 greedy text equals run.c's up to the first near-tie", "[golden][quant]") {
    // The steps where run.c's top-1 leads by < 0.1 first occur at tokens
    // 114, 67 and 35 (see above); before them the text must be identical.
    auto model = load_stories260k(LLM_WEIGHTS_Q8_0);
    const std::pair<const char *, size_t> first_tie[] = {
        {"empty", 114}, {"once_upon", 67}, {"pigs_punct", 35}};
    for (auto [name, n] : first_tie) {
        auto g =
            read_json(shared_path(std::string("golden/llama2c/stories260K_") + name + ".json"));
        auto want = g["generated_token_ids"].get<std::vector<int>>();
        auto got = greedy(model.get(), g["prompt_token_ids"].get<std::vector<int>>(),
                          g["steps"].get<int>());
        INFO(name);
        REQUIRE(got.size() >= n);
        CHECK(std::equal(want.begin(), want.begin() + static_cast<long>(n), got.begin()));
    }
}
