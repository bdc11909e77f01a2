// The engine checks its own preconditions. The C layer already refuses a full
// context and out-of-range tokens, but tools and tests drive Transformer
// directly: llm-bench once warmed up with two tokens in a context sized for
// prompt + 1, wrote past the KV cache and corrupted the heap.
#include <catch2/catch.hpp>

#include <functional>
#include <vector>

#include "common/error.h"
#include "engine/transformer.h"
#include "loaders/loader.h"
#include "support/test_support.h"

namespace {

llm_status status_of(const std::function<void()> &f) {
    try {
        f();
    } catch (const llm::Error &e) {
        return e.status();
    }
    return LLM_OK;
}

} // namespace

TEST_CASE("Transformer::forward refuses positions beyond its context and unknown tokens",
          "[engine]") {
    llm::LoadOptions lo;
    lo.tokenizer_path = test::shared_path("models/tok512.bin");
    auto model = llm::load_model(test::shared_path("models/stories260K.bin"), lo);
    const int32_t vocab = model->config.vocab_size;
    llm::Transformer tf(*model, 4, 1);
    std::vector<float> logits(static_cast<size_t>(vocab));
    const int32_t three[3] = {1, 2, 3};
    auto forward = [&](const int32_t *t, int64_t n, int32_t pos) {
        return [&tf, &logits, t, n, pos] { tf.forward(t, n, pos, logits.data(), nullptr); };
    };

    CHECK(status_of(forward(three, 3, 0)) == LLM_OK);
    CHECK(status_of(forward(three, 1, 3)) == LLM_OK); // the last free position
    CHECK(status_of(forward(three, 2, 3)) == LLM_ERR_CONTEXT_FULL);
    CHECK(status_of(forward(three, 1, 4)) == LLM_ERR_CONTEXT_FULL);
    CHECK(status_of(forward(three, 3, 2)) == LLM_ERR_CONTEXT_FULL);
    CHECK(status_of(forward(three, 1, -1)) == LLM_ERR_CONTEXT_FULL);
    CHECK(status_of(forward(three, -1, 0)) == LLM_ERR_CONTEXT_FULL);

    const int32_t bad_high[2] = {1, vocab};
    const int32_t bad_low[1] = {-1};
    CHECK(status_of(forward(bad_high, 2, 0)) == LLM_ERR_TOKEN_OUT_OF_RANGE);
    CHECK(status_of(forward(bad_low, 1, 0)) == LLM_ERR_TOKEN_OUT_OF_RANGE);
    const int32_t last[1] = {vocab - 1};
    CHECK(status_of(forward(last, 1, 0)) == LLM_OK);
}
