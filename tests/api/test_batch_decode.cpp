// llm_decode_batch / llm_step_batch: several contexts of one model decoded
// together give each context the tokens and logits it gets alone: bit for
// bit on a model loaded with LLM_BATCH_EXACT=1, else within float rounding
// (steps of enough rows go through the batch kernels, as a prompt does).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>

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

const std::vector<Seq> kSeqs = {
    {"Once upon a time", 0, 24}, {"The dog", 0, 9},     {"Lily and Tom went to the park", 3, 20},
    {"One day", 5, 14},          {"She was sad", 5, 4}, {"A little cat named Max", 12, 16},
};

// kSeqs three times over, each copy joining a step later: steps of up to
// 18 rows (two chunks of the test models' 16), enough for the batch kernels
// on fp32, Q8_0 and Q4_0 weights (batch_step_min_tokens; the K types, at
// 20, stay on the decode kernels here).
std::vector<Seq> many_seqs() {
    std::vector<Seq> seqs;
    for (int copy = 0; copy < 3; ++copy)
        for (Seq s : kSeqs) {
            s.join += copy;
            seqs.push_back(s);
        }
    return seqs;
}

// A model whose batched steps keep each row's lone arithmetic.
template <typename Load> ModelPtr load_exact(Load load) {
    return load_with_env("LLM_BATCH_EXACT", "1", load);
}

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
std::vector<Trace> together(const llm_model *m, const std::vector<Seq> &seqs, int32_t kv_type,
                            const std::vector<Trace> &ref) {
    const int32_t vocab = llm_model_n_vocab(m);
    const int kN = static_cast<int>(seqs.size());
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
            const Seq &s = seqs[static_cast<size_t>(i)];
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

float max_abs(const std::vector<float> &v) {
    float m = 0;
    for (float x : v)
        m = std::max(m, std::fabs(x));
    return m;
}

// The best logit's lead over the second best.
float margin(const std::vector<float> &l) {
    float a = -INFINITY, b = -INFINITY;
    for (float x : l)
        if (x > a) {
            b = a;
            a = x;
        } else if (x > b) {
            b = x;
        }
    return a - b;
}

// The requirement: logits within `tol` of the sequences run alone
// (relative to the largest logit's size) and the same greedy tokens
// wherever the lone run's choice was clear of that. With `exact` (a model
// loaded with LLM_BATCH_EXACT=1), identical: each row of a step then goes
// through the same decode kernels as a lone token (kernels matvec_tokens).
//
// tol is 1e-4 where every value stays fp32. Where a step rounds values to a
// coarser format (Q8_0's activations to int8 per 32-value block, the KV
// cache to fp16), a last-bit difference can move a value across a rounding
// boundary: a whole int8 step (1/127 of the block's largest) or fp16 ulp,
// which the following layers carry on. On stories260K that gave up to
// 1.2e-2 (Q8_0) and 3e-4 (fp16 KV), as a prompt's logits differ from a
// decode's there.
void check_same(const llm_model *m, int32_t kv_type, bool exact,
                const std::vector<Seq> &seqs = kSeqs, float tol = 1e-4f) {
    const int kN = static_cast<int>(seqs.size());
    std::vector<Trace> ref;
    for (int i = 0; i < kN; ++i)
        ref.push_back(alone(m, seqs[static_cast<size_t>(i)], kv_type));
    const auto batched = together(m, seqs, kv_type, ref);
    for (int i = 0; i < kN; ++i) {
        INFO("sequence " << i << (exact ? ", exact" : ", batch kernels"));
        REQUIRE(batched[i].logits.size() == ref[i].logits.size());
        REQUIRE(batched[i].tokens.size() == ref[i].tokens.size());
        float worst = 0; // relative to the step's largest logit
        for (size_t k = 0; k < ref[i].logits.size(); ++k) {
            const std::vector<float> &r = ref[i].logits[k];
            const float scale = std::max(1.0f, max_abs(r));
            const float diff = max_abs_diff(r.data(), batched[i].logits[k].data(), r.size());
            worst = std::max(worst, diff / scale);
            // Token k + 1 was picked from these logits (token 0 from the prompt's).
            if (k + 1 < ref[i].tokens.size() && margin(r) > 2 * tol * scale) {
                INFO("token " << k + 1);
                CHECK(batched[i].tokens[k + 1] == ref[i].tokens[k + 1]);
            }
        }
        CHECK(batched[i].tokens[0] == ref[i].tokens[0]);
        CHECK(worst <= tol);
        if (exact) CHECK(worst == 0.0f);
    }
}

// A random model whose dims are whole 32-value blocks (for Q4_0), with
// tok512 as its tokenizer.
ModelPtr load_block_model(int32_t weight_type) {
    const std::string path = temp_dir() + "/batch_decode_q4.bin";
    write_file(path, make_llama2c_checkpoint({64, 160, 2, 4, 2, 512, 128}, 7));
    return load_model(path, shared_path("models/tok512.bin").c_str(), weight_type);
}

// The same with dims of whole 256-value blocks (for the K types).
ModelPtr load_kblock_model(int32_t weight_type) {
    const std::string path = temp_dir() + "/batch_decode_qk.bin";
    write_file(path, make_llama2c_checkpoint({256, 512, 2, 4, 2, 512, 128}, 7));
    return load_model(path, shared_path("models/tok512.bin").c_str(), weight_type);
}

} // namespace

// Each weight type on both paths, with steps of few rows (kSeqs) and of
// many (many_seqs).
// quantized: the weights meet int8 activations (tol above).
void check_both(const std::function<ModelPtr()> &load, std::initializer_list<int32_t> kv_types,
                bool quantized) {
    auto exact = load_exact(load);
    auto fast = load();
    for (int32_t kv : kv_types) {
        INFO("kv type " << kv);
        const float tol = quantized ? 3e-2f : kv == LLM_KV_F16 ? 1e-3f : 1e-4f;
        check_same(exact.get(), kv, true);
        check_same(exact.get(), kv, true, many_seqs());
        check_same(fast.get(), kv, false, kSeqs, tol);
        check_same(fast.get(), kv, false, many_seqs(), tol);
    }
}

TEST_CASE("batch decode: same tokens and logits as alone, fp32, F32 and F16 KV", "[batch]") {
    check_both([] { return load_stories260k(LLM_WEIGHTS_F32); }, {LLM_KV_F32, LLM_KV_F16}, false);
}

TEST_CASE("batch decode: same tokens and logits as alone, Q8_0, F32 and F16 KV", "[batch]") {
    check_both([] { return load_stories260k(LLM_WEIGHTS_Q8_0); }, {LLM_KV_F32, LLM_KV_F16}, true);
}

TEST_CASE("batch decode: same tokens and logits as alone, Q4_0 blocks", "[batch]") {
    check_both([] { return load_block_model(LLM_WEIGHTS_Q4_0); }, {LLM_KV_F16}, true);
}

TEST_CASE("batch decode: same tokens and logits as alone, Q4_K and Q6_K blocks", "[batch]") {
    // 256-value K blocks: a model whose dims are whole ones.
    for (int32_t type : {LLM_WEIGHTS_Q4_K, LLM_WEIGHTS_Q6_K}) {
        INFO("weight type " << type);
        check_both([type] { return load_kblock_model(type); }, {LLM_KV_F16}, true);
    }
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
    auto model = load_exact([] { return load_stories260k(LLM_WEIGHTS_Q8_0); });
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
