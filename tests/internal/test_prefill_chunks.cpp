// How a prompt is split into prefill chunks: whole 128-token chunks where the
// weights are large, smaller ones where a chunk's activations would weigh
// against a small model's own memory (weights + KV cache), and the same
// logits whichever way a prompt is cut.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "engine/transformer.h"
#include "loaders/loader.h"
#include "model/synthetic_model.h"
#include "support/test_support.h"

namespace {

std::unique_ptr<llm::Model> synthetic(const std::string &shape, llm::DType type) {
    llm::ModelConfig config;
    REQUIRE(llm::synthetic_config(shape, config));
    return llm::make_synthetic_model(config, type, 1);
}

float max_abs_diff(const std::vector<float> &a, const std::vector<float> &b) {
    float d = 0.0f;
    for (size_t i = 0; i < a.size(); ++i)
        d = std::max(d, std::fabs(a[i] - b[i]));
    return d;
}

} // namespace

TEST_CASE("prefill chunks: whole tiles, activations within 1/24 of the weights", "[engine]") {
    struct Case {
        const char *shape;
        llm::DType type;
        int64_t expected;
    };
    // stories15M's Q8_0 weights are 16 MB: a 128-token chunk's activations
    // (1.5 MB) would be 9% of them. f32 weights and larger models keep 128.
    const Case cases[] = {{"stories15M", llm::DType::Q8_0, 48},
                          {"stories15M", llm::DType::BF16, 96},
                          {"stories15M", llm::DType::F32, 128}};
    for (const Case &c : cases) {
        auto model = synthetic(c.shape, c.type);
        llm::Transformer tf(*model, 16, 1);
        const int64_t per_token = llm::Transformer::batch_bytes_per_token(model->config);
        INFO(c.shape << " " << llm::dtype_name(c.type) << ": " << tf.max_batch() << " tokens");
        CHECK(tf.max_batch() == c.expected);
        CHECK(tf.max_batch() % 16 == 0);
        if (tf.max_batch() < 128) CHECK(tf.max_batch() * per_token <= model->weight_bytes() / 24);
    }
    // A model too small for even one tile within its share still gets one.
    llm::LoadOptions lo;
    lo.tokenizer_path = test::shared_path("models/tok512.bin");
    auto tiny = llm::load_model(test::shared_path("models/stories260K.bin"), lo);
    CHECK(llm::Transformer(*tiny, 16, 1).max_batch() == 16);
}

TEST_CASE("a prompt cut into prefill chunks equals token-by-token", "[engine]") {
    // stories260K takes 16-token chunks: 75 tokens are five chunks, each
    // attending to the ones before through the KV cache.
    llm::LoadOptions lo;
    lo.tokenizer_path = test::shared_path("models/tok512.bin");
    auto model = llm::load_model(test::shared_path("models/stories260K.bin"), lo);
    const int32_t vocab = model->config.vocab_size;
    std::vector<int32_t> prompt(75);
    for (size_t i = 0; i < prompt.size(); ++i)
        prompt[i] = static_cast<int32_t>((i * 37 + 5) % static_cast<size_t>(vocab));
    const int64_t n = static_cast<int64_t>(prompt.size());

    llm::Transformer chunked(*model, 128, 2), single(*model, 128, 1);
    REQUIRE(chunked.max_batch() < n);
    std::vector<float> a(static_cast<size_t>(vocab)), b(a.size());
    REQUIRE(chunked.forward(prompt.data(), n, 0, a.data(), nullptr) == n);
    for (int64_t t = 0; t < n; ++t)
        REQUIRE(single.forward(&prompt[static_cast<size_t>(t)], 1, static_cast<int32_t>(t),
                               b.data(), nullptr) == 1);
    CHECK(max_abs_diff(a, b) < 1e-4f);
    // ...and the next decoded token sees the whole prompt in both.
    const int32_t next = 7;
    chunked.forward(&next, 1, static_cast<int32_t>(n), a.data(), nullptr);
    single.forward(&next, 1, static_cast<int32_t>(n), b.data(), nullptr);
    CHECK(max_abs_diff(a, b) < 1e-4f);
}
