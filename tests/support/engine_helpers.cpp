#include "support/engine_helpers.h"

#include <algorithm>

#include <catch2/catch.hpp>

#include "engine/transformer.h"
#include "support/test_support.h"

namespace test {

namespace {
int32_t argmax(const std::vector<float> &v) {
    return static_cast<int32_t>(std::max_element(v.begin(), v.end()) - v.begin());
}
} // namespace

std::vector<std::vector<float>> teacher_forced_logits(const llm::Model &model,
                                                      const std::vector<int32_t> &tokens,
                                                      const std::vector<int32_t> &rows) {
    const int32_t n = rows.empty() ? 0 : rows.back() + 1;
    REQUIRE(static_cast<size_t>(n) <= tokens.size());
    llm::Transformer tf(model, n, 1);
    std::vector<float> logits(static_cast<size_t>(model.config.vocab_size));
    std::vector<std::vector<float>> out;
    size_t next_row = 0;
    for (int32_t pos = 0; pos < n; ++pos) {
        REQUIRE(tf.forward(&tokens[static_cast<size_t>(pos)], 1, pos, logits.data(), nullptr) == 1);
        if (next_row < rows.size() && rows[next_row] == pos) {
            out.push_back(logits);
            ++next_row;
        }
    }
    return out;
}

std::vector<int32_t> greedy_ids(const llm::Model &model, const std::vector<int32_t> &prompt,
                                int32_t steps, const std::set<int32_t> &stop) {
    llm::Transformer tf(model, steps, 2);
    std::vector<float> logits(static_cast<size_t>(model.config.vocab_size));
    REQUIRE(tf.forward(prompt.data(), static_cast<int64_t>(prompt.size()), 0, logits.data(),
                       nullptr) == static_cast<int64_t>(prompt.size()));
    std::vector<int32_t> out;
    int32_t pos = static_cast<int32_t>(prompt.size());
    for (;;) {
        const int32_t t = argmax(logits);
        if (stop.count(t)) break;
        out.push_back(t);
        if (pos >= steps) break;
        REQUIRE(tf.forward(&t, 1, pos++, logits.data(), nullptr) == 1);
    }
    return out;
}

llm::Error error_of(const std::function<void()> &f) {
    try {
        f();
    } catch (const llm::Error &e) {
        return e;
    }
    FAIL("expected an llm::Error, nothing was thrown");
    throw; // not reached
}

void check_stories260k_goldens(const llm::Model &model) {
    for (const char *name : {"empty", "once_upon", "pigs_punct"}) {
        const std::string base = shared_path(std::string("golden/llama2c/stories260K_") + name);
        auto g = read_json(base + ".json");
        INFO(name);
        const auto prompt = g["prompt_token_ids"].get<std::vector<int32_t>>();
        CHECK(greedy_ids(model, prompt, g["steps"].get<int32_t>(), {1}) ==
              g["generated_token_ids"].get<std::vector<int32_t>>());
        auto golden = read_llama2c_logits(base + ".logits.f32");
        std::vector<int32_t> tokens, rows;
        for (const auto &r : golden) {
            tokens.push_back(r.token);
            rows.push_back(r.pos);
        }
        auto logits = teacher_forced_logits(model, tokens, rows);
        for (size_t i = 0; i < golden.size(); ++i) {
            INFO("pos " << golden[i].pos);
            CHECK(max_abs_diff(logits[i].data(), golden[i].logits.data(), logits[i].size()) <
                  1e-4f);
        }
    }
}

} // namespace test
