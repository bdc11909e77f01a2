// Transformer::set_hidden_output: the final-normed states of a prompt run as
// one batch (in chunks) agree with the same tokens run one at a time, and the
// last one is the state the classifier turns into the logits.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/transformer.h"
#include "kernels/kernels.h"
#include "loaders/loader.h"
#include "support/test_support.h"

TEST_CASE("hidden states: batched prefill vs one token at a time", "[embed]") {
    for (const char *path : {"models/stories260K.bin", "models/qwen2-tiny"}) {
        INFO(path);
        llm::LoadOptions lo;
        if (std::string(path).find(".bin") != std::string::npos)
            lo.tokenizer_path = test::shared_path("models/tok512.bin");
        auto model = llm::load_model(test::shared_path(path), lo);
        const int64_t dim = model->config.dim;
        // 40 tokens: several chunks for stories260K's small batch.
        std::vector<int32_t> ids;
        for (int32_t i = 0; i < 40; ++i)
            ids.push_back(1 + (i * 37) % 300);

        llm::Transformer batched(*model, 64, 2);
        std::vector<float> a(ids.size() * dim), b(ids.size() * dim);
        std::vector<float> logits(static_cast<size_t>(model->config.vocab_size));
        batched.set_hidden_output(a.data());
        REQUIRE(batched.forward(ids.data(), static_cast<int64_t>(ids.size()), 0, logits.data(),
                                nullptr) == static_cast<int64_t>(ids.size()));

        llm::Transformer single(*model, 64, 1);
        for (size_t t = 0; t < ids.size(); ++t) {
            single.set_hidden_output(&b[t * dim]);
            REQUIRE(single.forward(&ids[t], 1, static_cast<int32_t>(t), nullptr, nullptr) == 1);
        }
        single.set_hidden_output(nullptr);
        // Within 1e-4, or 2e-6 of the largest state value (qwen2-tiny's
        // reach about 170: float sums in another order).
        float largest = 0.0f;
        for (float v : a)
            largest = std::max(largest, std::fabs(v));
        INFO("largest value " << largest);
        CHECK(test::max_abs_diff(a.data(), b.data(), a.size()) < std::max(1e-4f, 2e-6f * largest));

        // The logits are the classifier applied to the last state.
        const llm::Matrix &classifier = model->weights.classifier;
        std::vector<float> row(static_cast<size_t>(dim));
        float worst = 0.0f;
        for (int32_t v = 0; v < model->config.vocab_size; v += 97) {
            llm::matrix_row_f32(classifier, v, row.data());
            double dot = 0.0;
            for (int64_t i = 0; i < dim; ++i)
                dot += double(row[static_cast<size_t>(i)]) * a[(ids.size() - 1) * dim + i];
            worst = std::max(worst,
                             std::fabs(static_cast<float>(dot) - logits[static_cast<size_t>(v)]));
        }
        CHECK(worst < 1e-3f);
    }
}
