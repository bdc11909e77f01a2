// llm_decode_batch / llm_step_batch: several contexts of one model decoded
// together give each context the tokens and logits it gets alone.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>

#include "support/api_helpers.h"
#include "support/llama2c_writer.h"
#include "support/test_support.h"

using namespace test;

namespace {

struct Seq {
    std::string prompt;
    int join;  // global step at which the sequence starts (prefills)
    int steps; // tokens it decodes before it leaves
};

const Seq kSeqs[] = {
    {"Once upon a time", 0, 24}, {"The dog", 0, 9},     {"Lily and Tom went to the park", 3, 20},
    {"One day", 5, 14},          {"She was sad", 5, 4}, {"A little cat named Max", 12, 16},
};
constexpr int kN = sizeof kSeqs / sizeof kSeqs[0];

llm_token argmax(const float *l, int32_t n) {
    return static_cast<llm_token>(std::max_element(l, l + n) - l);
}

// Per sequence: the greedy tokens and the logits after each of them.
struct Trace {
    std::vector<llm_token> tokens;
    std::vector<std::vector<float>> logits;
};

Trace alone(const llm_model *m, const Seq &s, int32_t kv_type) {
    const int32_t vocab = llm_model_n_vocab(m);
    auto ctx = new_context(m, 128, 2, kv_type);
    const auto prompt = tokenize(m, s.prompt);
    REQUIRE(llm_forward(ctx.get(), prompt.data(), prompt.size()) == LLM_OK);
    Trace t;
    for (int i = 0; i < s.steps; ++i) {
        const llm_token next = argmax(llm_context_logits(ctx.get()), vocab);
        REQUIRE(llm_forward(ctx.get(), &next, 1) == LLM_OK);
        t.tokens.push_back(next);
        const float *l = llm_context_logits(ctx.get());
        t.logits.emplace_back(l, l + vocab);
    }
    return t;
}

// All sequences through llm_decode_batch, joining and leaving as kSeqs says.
// Each is fed the tokens it was fed alone (so that one near-tie cannot make
// the rest incomparable); Trace::tokens gets the batch's own greedy choices.
std::vector<Trace> together(const llm_model *m, int32_t kv_type, const std::vector<Trace> &ref) {
    const int32_t vocab = llm_model_n_vocab(m);
    std::vector<ContextPtr> ctxs;
    for (int i = 0; i < kN; ++i)
        ctxs.push_back(new_context(m, 128, 2, kv_type));
    std::vector<Trace> traces(kN);
    for (int step = 0;; ++step) {
        std::vector<llm_context *> batch;
        std::vector<llm_token> tokens;
        std::vector<int> who;
        bool pending = false;
        for (int i = 0; i < kN; ++i) {
            const Seq &s = kSeqs[i];
            if (step == s.join) {
                const auto prompt = tokenize(m, s.prompt);
                REQUIRE(llm_forward(ctxs[i].get(), prompt.data(), prompt.size()) == LLM_OK);
            }
            const int done = static_cast<int>(traces[i].logits.size());
            if (step >= s.join && done < s.steps) {
                batch.push_back(ctxs[i].get());
                traces[i].tokens.push_back(argmax(llm_context_logits(ctxs[i].get()), vocab));
                tokens.push_back(ref[i].tokens[static_cast<size_t>(done)]);
                who.push_back(i);
            }
            pending |= done < s.steps;
        }
        if (!pending) break;
        if (batch.empty()) continue;
        std::vector<llm_status> status(batch.size(), LLM_ERR_INTERNAL);
        INFO(llm_last_error());
        REQUIRE(llm_decode_batch(batch.data(), tokens.data(), batch.size(), status.data()) ==
                LLM_OK);
        for (size_t k = 0; k < batch.size(); ++k) {
            CHECK(status[k] == LLM_OK);
            Trace &t = traces[static_cast<size_t>(who[k])];
            const float *l = llm_context_logits(batch[k]);
            REQUIRE(l != nullptr);
            t.logits.emplace_back(l, l + vocab);
        }
    }
    return traces;
}

// Greedy tokens equal and logits within 1e-4 of the sequences run alone
// (the requirement); in fact identical, since each row of a step goes
// through the same decode kernels as a lone token (kernels matvec_tokens).
void check_same(const llm_model *m, int32_t kv_type) {
    std::vector<Trace> ref;
    for (int i = 0; i < kN; ++i)
        ref.push_back(alone(m, kSeqs[i], kv_type));
    const auto batched = together(m, kv_type, ref);
    for (int i = 0; i < kN; ++i) {
        INFO("sequence " << i);
        CHECK(batched[i].tokens == ref[i].tokens);
        REQUIRE(batched[i].logits.size() == ref[i].logits.size());
        float worst = 0;
        for (size_t k = 0; k < ref[i].logits.size(); ++k)
            worst =
                std::max(worst, max_abs_diff(ref[i].logits[k].data(), batched[i].logits[k].data(),
                                             ref[i].logits[k].size()));
        CHECK(worst <= 1e-4f);
        CHECK(worst == 0.0f);
    }
}

// A random model whose dims are whole 32-value blocks (for Q4_0), with
// tok512 as its tokenizer.
ModelPtr load_block_model(int32_t weight_type) {
    const std::string path = temp_dir() + "/batch_decode_q4.bin";
    write_file(path, make_llama2c_checkpoint({64, 160, 2, 4, 2, 512, 128}, 7));
    return load_model(path, shared_path("models/tok512.bin").c_str(), weight_type);
}

} // namespace

TEST_CASE("batch decode: same tokens and logits as alone, fp32, F32 and F16 KV", "[batch]") {
    auto model = load_stories260k(LLM_WEIGHTS_F32);
    check_same(model.get(), LLM_KV_F32);
    check_same(model.get(), LLM_KV_F16);
}

TEST_CASE("batch decode: same tokens and logits as alone, Q8_0, F32 and F16 KV", "[batch]") {
    auto model = load_stories260k(LLM_WEIGHTS_Q8_0);
    check_same(model.get(), LLM_KV_F32);
    check_same(model.get(), LLM_KV_F16);
}

TEST_CASE("batch decode: same tokens and logits as alone, Q4_0 blocks", "[batch]") {
    auto model = load_block_model(LLM_WEIGHTS_Q4_0);
    check_same(model.get(), LLM_KV_F16);
}

TEST_CASE("batch decode: bad batches change nothing", "[batch]") {
    auto model = load_stories260k();
    auto other = load_stories260k();
    const llm_model *m = model.get();
    auto a = new_context(m, 16, 1), b = new_context(m, 16, 1), c = new_context(other.get(), 16, 1);
    const auto prompt = tokenize(m, "Once upon");
    REQUIRE(llm_forward(a.get(), prompt.data(), prompt.size()) == LLM_OK);
    const int32_t pos_a = llm_context_position(a.get());
    llm_token t[2] = {5, 6};

    llm_context *mixed[2] = {a.get(), c.get()};
    CHECK(llm_decode_batch(mixed, t, 2, nullptr) == LLM_ERR_INVALID_ARGUMENT);
    CHECK_THAT(llm_last_error(), Catch::Contains("context 1") && Catch::Contains("model"));
    llm_context *twice[2] = {a.get(), a.get()};
    CHECK(llm_decode_batch(twice, t, 2, nullptr) == LLM_ERR_INVALID_ARGUMENT);
    CHECK_THAT(llm_last_error(), Catch::Contains("twice"));
    llm_context *with_null[2] = {a.get(), nullptr};
    CHECK(llm_decode_batch(with_null, t, 2, nullptr) == LLM_ERR_INVALID_ARGUMENT);
    llm_context *pair[2] = {a.get(), b.get()};
    CHECK(llm_decode_batch(pair, t, 0, nullptr) == LLM_ERR_INVALID_ARGUMENT);
    llm_token bad[2] = {5, 512};
    CHECK(llm_decode_batch(pair, bad, 2, nullptr) == LLM_ERR_TOKEN_OUT_OF_RANGE);
    CHECK_THAT(llm_last_error(), Catch::Contains("context 1"));

    // b full: neither context moves.
    std::vector<llm_token> fill(16, 5);
    REQUIRE(llm_forward(b.get(), fill.data(), fill.size()) == LLM_OK);
    llm_status status[2] = {LLM_OK, LLM_OK};
    CHECK(llm_decode_batch(pair, t, 2, status) == LLM_ERR_CONTEXT_FULL);
    CHECK_THAT(llm_last_error(), Catch::Contains("context 1"));
    CHECK(status[0] == LLM_ERR_INVALID_ARGUMENT);
    CHECK(llm_context_position(a.get()) == pos_a);
    CHECK(llm_context_logits(a.get()) != nullptr);
    CHECK(llm_context_position(b.get()) == 16);
}

TEST_CASE("batch decode: a cancelled context leaves the step, the others finish", "[batch]") {
    auto model = load_stories260k();
    const llm_model *m = model.get();
    auto a = new_context(m, 64, 2), b = new_context(m, 64, 2);
    const auto prompt = tokenize(m, "Once upon a time");
    REQUIRE(llm_forward(a.get(), prompt.data(), prompt.size()) == LLM_OK);
    REQUIRE(llm_forward(b.get(), prompt.data(), prompt.size()) == LLM_OK);
    llm_context_cancel(b.get());
    llm_context *pair[2] = {a.get(), b.get()};
    llm_token t[2] = {5, 6};
    llm_status status[2];
    CHECK(llm_decode_batch(pair, t, 2, status) == LLM_ERR_CANCELLED);
    CHECK(status[0] == LLM_OK);
    CHECK(status[1] == LLM_ERR_CANCELLED);
    CHECK(llm_context_position(a.get()) == static_cast<int32_t>(prompt.size()) + 1);
    CHECK(llm_context_position(b.get()) == static_cast<int32_t>(prompt.size()));
    // The request was consumed: the next step feeds both.
    CHECK(llm_decode_batch(pair, t, 2, status) == LLM_OK);
    CHECK(llm_context_position(b.get()) == static_cast<int32_t>(prompt.size()) + 1);
}

TEST_CASE("batch step: llm_step_batch generates what llm_context_step does", "[batch]") {
    auto model = load_stories260k();
    const llm_model *m = model.get();
    const char *prompts[3] = {"Once upon a time", "The dog", "Lily"};
    std::vector<std::vector<llm_token>> ref(3), got(3);
    for (int i = 0; i < 3; ++i) {
        auto ctx = new_context(m, 40, 1);
        auto sampler = greedy_sampler();
        const auto prompt = tokenize(m, prompts[i]);
        REQUIRE(llm_forward(ctx.get(), prompt.data(), prompt.size()) == LLM_OK);
        std::vector<char> buf(llm_context_step_max_bytes(ctx.get()));
        for (;;) {
            llm_token t;
            int32_t eog = 0;
            size_t len = 0;
            llm_status s =
                llm_context_step(ctx.get(), sampler.get(), &t, &eog, buf.data(), buf.size(), &len);
            ref[i].push_back(t);
            if (eog || s != LLM_OK) break;
        }
    }
    std::vector<ContextPtr> ctxs;
    std::vector<llm_context *> raw;
    auto sampler = greedy_sampler();
    for (int i = 0; i < 3; ++i) {
        ctxs.push_back(new_context(m, 40, 1));
        const auto prompt = tokenize(m, prompts[i]);
        REQUIRE(llm_forward(ctxs.back().get(), prompt.data(), prompt.size()) == LLM_OK);
        raw.push_back(ctxs.back().get());
    }
    // One sampler serves all three (greedy: no state); a context leaves the
    // batch at its end of generation or full context.
    std::vector<llm_sampler *> samplers(3, sampler.get());
    while (!raw.empty()) {
        std::vector<llm_token> tokens(raw.size());
        std::vector<int32_t> eog(raw.size());
        std::vector<llm_status> status(raw.size());
        llm_step_batch(raw.data(), samplers.data(), raw.size(), tokens.data(), eog.data(),
                       status.data());
        std::vector<llm_context *> next;
        for (size_t k = 0; k < raw.size(); ++k) {
            int i = 0;
            while (ctxs[static_cast<size_t>(i)].get() != raw[k])
                ++i;
            got[static_cast<size_t>(i)].push_back(tokens[k]);
            CHECK((status[k] == LLM_OK || status[k] == LLM_ERR_CONTEXT_FULL));
            if (!eog[k] && status[k] == LLM_OK) next.push_back(raw[k]);
        }
        raw = next;
    }
    for (int i = 0; i < 3; ++i) {
        INFO("context " << i);
        CHECK(got[static_cast<size_t>(i)] == ref[static_cast<size_t>(i)]);
    }
}

TEST_CASE("batch decode: more contexts than one chunk of rows", "[batch]") {
    auto model = load_stories260k(LLM_WEIGHTS_Q8_0);
    const llm_model *m = model.get();
    const int32_t vocab = llm_model_n_vocab(m);
    constexpr int kMany = 40; // stories260K's batches hold 16 tokens
    const auto prompt = tokenize(m, "Once upon a time");
    std::vector<ContextPtr> ctxs;
    std::vector<llm_context *> raw;
    std::vector<llm_token> tokens;
    for (int i = 0; i < kMany; ++i) {
        ctxs.push_back(new_context(m, 32, 2));
        REQUIRE(llm_forward(ctxs.back().get(), prompt.data(), prompt.size()) == LLM_OK);
        raw.push_back(ctxs.back().get());
        tokens.push_back(3 + 7 * i);
    }
    REQUIRE(llm_decode_batch(raw.data(), tokens.data(), raw.size(), nullptr) == LLM_OK);
    auto ref = new_context(m, 32, 2);
    for (int i = 0; i < kMany; ++i) {
        INFO("context " << i);
        llm_context_reset(ref.get());
        REQUIRE(llm_forward(ref.get(), prompt.data(), prompt.size()) == LLM_OK);
        REQUIRE(llm_forward(ref.get(), &tokens[static_cast<size_t>(i)], 1) == LLM_OK);
        CHECK(max_abs_diff(llm_context_logits(ref.get()), llm_context_logits(raw[i]),
                           static_cast<size_t>(vocab)) <= 1e-4f);
        CHECK(llm_context_position(raw[i]) == static_cast<int32_t>(prompt.size()) + 1);
    }
}
