// A context at its length limit, and llm_context_rewind / llm_context_reset.
#include <catch2/catch.hpp>

#include <cstring>

#include "support/api_helpers.h"
#include "support/test_support.h"

using namespace test;

namespace {

std::vector<float> logits_of(const llm_context *ctx, const llm_model *m) {
    const float *l = llm_context_logits(ctx);
    REQUIRE(l != nullptr);
    return std::vector<float>(l, l + llm_model_n_vocab(m));
}

std::vector<llm_token> context_tokens(const llm_context *ctx) {
    size_t n = 0;
    llm_context_tokens(ctx, nullptr, 0, &n);
    std::vector<llm_token> out(n);
    REQUIRE(llm_context_tokens(ctx, out.data(), out.size(), &n) == LLM_OK);
    return out;
}

// BOS and the first 7 ids of run.c's greedy story from it ("Once upon a
// time, there"), so greedy continuations are known.
std::vector<llm_token> story_prefix() {
    auto g = read_json(shared_path("golden/llama2c/stories260K_empty.json"));
    std::vector<llm_token> ids = g["prompt_token_ids"].get<std::vector<llm_token>>();
    for (size_t i = 0; ids.size() < 8; ++i)
        ids.push_back(g["generated_token_ids"][i].get<llm_token>());
    return ids;
}

} // namespace

TEST_CASE("a full context returns CONTEXT_FULL and consumes nothing", "[context]") {
    const auto prompt = story_prefix();
    auto model = load_stories260k();
    auto ctx = new_context(model.get(), 8);
    REQUIRE(llm_context_n_ctx(ctx.get()) == 8);
    REQUIRE(llm_forward(ctx.get(), prompt.data(), 8) == LLM_OK);
    const auto logits = logits_of(ctx.get(), model.get());

    llm_token more = 400;
    CHECK(llm_forward(ctx.get(), &more, 1) == LLM_ERR_CONTEXT_FULL);
    CHECK_THAT(std::string(llm_last_error()), Catch::Contains("8 of 8"));
    CHECK(llm_context_position(ctx.get()) == 8);
    CHECK(context_tokens(ctx.get()) == prompt);
    CHECK(logits_of(ctx.get(), model.get()) == logits); // untouched

    // Too many at once on an empty context: refused whole.
    auto empty = new_context(model.get(), 8);
    std::vector<llm_token> nine(prompt);
    nine.push_back(400);
    CHECK(llm_forward(empty.get(), nine.data(), nine.size()) == LLM_ERR_CONTEXT_FULL);
    CHECK(llm_context_position(empty.get()) == 0);
    CHECK(llm_context_logits(empty.get()) == nullptr);

    // Rewind and go on.
    REQUIRE(llm_context_rewind(ctx.get(), 7) == LLM_OK);
    CHECK(llm_forward(ctx.get(), &more, 1) == LLM_OK);
    CHECK(llm_context_position(ctx.get()) == 8);
    // Reset and go on.
    llm_context_reset(ctx.get());
    CHECK(llm_context_position(ctx.get()) == 0);
    REQUIRE(llm_forward(ctx.get(), prompt.data(), 8) == LLM_OK);
    CHECK(logits_of(ctx.get(), model.get()) == logits);
}

TEST_CASE("llm_context_step at the limit returns the token and CONTEXT_FULL", "[context]") {
    const auto prompt = story_prefix();
    auto model = load_stories260k();
    auto ctx = new_context(model.get(), 4);
    auto sampler = greedy_sampler();
    REQUIRE(llm_forward(ctx.get(), prompt.data(), 4) == LLM_OK);
    std::vector<char> buf(llm_context_step_max_bytes(ctx.get()));
    llm_token t = LLM_TOKEN_NONE;
    int32_t eog = 1;
    size_t n = 0;
    CHECK(llm_context_step(ctx.get(), sampler.get(), &t, &eog, buf.data(), buf.size(), &n) ==
          LLM_ERR_CONTEXT_FULL);
    CHECK(t == prompt[4]); // run.c's greedy story goes on with the same id
    CHECK(eog == 0);
    CHECK(n > 0); // its text is returned too
    CHECK(llm_context_position(ctx.get()) == 4);
}

TEST_CASE("llm_generate stops at the context length with CONTEXT_FULL", "[context]") {
    const auto prompt = story_prefix();
    auto model = load_stories260k();
    auto ctx = new_context(model.get(), 16);
    auto sampler = greedy_sampler();
    llm_generate_params gp = llm_generate_default_params();
    gp.stop_at_eog = 0;
    struct Seen {
        std::vector<llm_token> ids;
        std::string text;
    } seen;
    auto cb = [](const char *text, size_t len, llm_token t, void *user) -> int32_t {
        auto *s = static_cast<Seen *>(user);
        s->ids.push_back(t);
        s->text.append(text, len);
        return 0;
    };
    int32_t generated = 0;
    CHECK(llm_generate(ctx.get(), sampler.get(), prompt.data(), 3, &gp, cb, &seen, &generated) ==
          LLM_ERR_CONTEXT_FULL);
    // 13 tokens fill the context; the 14th was sampled and delivered but
    // had no room.
    CHECK(generated == 14);
    CHECK(seen.ids.size() == 14);
    CHECK(llm_context_position(ctx.get()) == 16);
    for (size_t i = 0; i + 3 < prompt.size(); ++i)
        CHECK(seen.ids[i] == prompt[i + 3]); // the greedy story
    auto all = prompt;
    all.resize(3);
    const size_t prompt_text = detokenize(model.get(), all).size();
    all.insert(all.end(), seen.ids.begin(), seen.ids.end());
    CHECK(seen.text == detokenize(model.get(), all).substr(prompt_text));
    // Calling again right away: still full, nothing generated.
    seen.ids.clear();
    CHECK(llm_generate(ctx.get(), sampler.get(), nullptr, 0, &gp, cb, &seen, &generated) ==
          LLM_ERR_CONTEXT_FULL);
    CHECK(generated == 1);
    CHECK(llm_context_position(ctx.get()) == 16);
}

TEST_CASE("rewind keeps a prefix, and generation from it equals a fresh run", "[context]") {
    const auto prompt = story_prefix();
    auto model = load_stories260k();
    const llm_model *m = model.get();
    auto ctx = new_context(m, 64);
    REQUIRE(llm_forward(ctx.get(), prompt.data(), prompt.size()) == LLM_OK);
    auto a = greedy(m, {prompt.begin(), prompt.begin() + 5}, 40);

    CHECK(llm_context_rewind(ctx.get(), 5) == LLM_OK);
    CHECK(llm_context_position(ctx.get()) == 5);
    CHECK(context_tokens(ctx.get()) == std::vector<llm_token>(prompt.begin(), prompt.begin() + 5));
    CHECK(llm_context_logits(ctx.get()) == nullptr); // cleared until the next forward
    llm_token t;
    auto sampler = greedy_sampler();
    CHECK(llm_sample(sampler.get(), ctx.get(), &t) == LLM_ERR_INVALID_ARGUMENT);

    // Re-feeding the last kept token is the way to get its logits back.
    REQUIRE(llm_context_rewind(ctx.get(), 4) == LLM_OK);
    REQUIRE(llm_forward(ctx.get(), &prompt[4], 1) == LLM_OK);
    std::vector<llm_token> b;
    for (;;) { // as test::greedy does
        REQUIRE(llm_sample(sampler.get(), ctx.get(), &t) == LLM_OK);
        if (llm_token_is_eog(m, t)) break;
        b.push_back(t);
        if (llm_context_position(ctx.get()) >= 40) break;
        REQUIRE(llm_forward(ctx.get(), &t, 1) == LLM_OK);
    }
    CHECK(b == a);

    // Out of range.
    const int32_t pos = llm_context_position(ctx.get());
    CHECK(llm_context_rewind(ctx.get(), pos + 1) == LLM_ERR_INVALID_ARGUMENT);
    CHECK_THAT(std::string(llm_last_error()), Catch::Contains(std::to_string(pos)));
    CHECK(llm_context_rewind(ctx.get(), -1) == LLM_ERR_INVALID_ARGUMENT);
    CHECK(llm_context_position(ctx.get()) == pos);
    // To the current position: a no-op for the tokens.
    CHECK(llm_context_rewind(ctx.get(), pos) == LLM_OK);
    CHECK(llm_context_position(ctx.get()) == pos);
    CHECK(llm_context_rewind(ctx.get(), 0) == LLM_OK);
    CHECK(llm_context_position(ctx.get()) == 0);
}

TEST_CASE("llm_context_step's text after a rewind follows the kept tokens", "[context]") {
    const auto prompt = story_prefix();
    auto model = load_stories260k();
    const llm_model *m = model.get();
    auto ctx = new_context(m, 64);
    auto sampler = greedy_sampler();
    std::vector<char> buf(llm_context_step_max_bytes(ctx.get()));
    auto step_text = [&](int steps) {
        std::string text;
        for (int i = 0; i < steps; ++i) {
            llm_token t;
            int32_t eog = 0;
            size_t n = 0;
            REQUIRE(llm_context_step(ctx.get(), sampler.get(), &t, &eog, buf.data(), buf.size(),
                                     &n) == LLM_OK);
            text.append(buf.data(), n);
        }
        return text;
    };
    REQUIRE(llm_forward(ctx.get(), prompt.data(), 1) == LLM_OK); // BOS only
    const std::string first = step_text(10);
    CHECK(first.rfind("Once", 0) == 0); // the space after BOS is dropped
    // Rewind to BOS and re-feed it: the same text, same leading-space rule.
    REQUIRE(llm_context_rewind(ctx.get(), 0) == LLM_OK);
    REQUIRE(llm_forward(ctx.get(), prompt.data(), 1) == LLM_OK);
    CHECK(step_text(10) == first);
}
