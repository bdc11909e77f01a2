// Saved context states (llm_context_state_*) and shared prefixes
// (llm_context_copy_prefix): a loaded state continues exactly as the saved
// context, a copied prefix as a prefill from scratch, and anything else is
// refused with a clear status and the context left as it was.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>

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

std::vector<uint8_t> save(const llm_context *ctx) {
    size_t n = 0;
    REQUIRE(llm_context_state_size(ctx, &n) == LLM_OK);
    std::vector<uint8_t> buf(n);
    size_t written = 0;
    REQUIRE(llm_context_state_save(ctx, buf.data(), buf.size(), &written) == LLM_OK);
    REQUIRE(written == n);
    return buf;
}

void forward(llm_context *ctx, const std::vector<llm_token> &ids) {
    REQUIRE(llm_forward(ctx, ids.data(), ids.size()) == LLM_OK);
}

// n greedy steps through llm_context_step: the tokens, their text, and the
// logits after each step, bit for bit.
struct Run {
    std::vector<llm_token> tokens;
    std::string text;
    std::vector<std::vector<float>> logits;
};
Run steps(llm_context *ctx, const llm_model *m, int n) {
    auto sampler = greedy_sampler();
    Run r;
    std::string buf(llm_context_step_max_bytes(ctx), '\0');
    for (int i = 0; i < n; ++i) {
        llm_token t;
        int32_t eog = 0;
        size_t len = 0;
        REQUIRE(llm_context_step(ctx, sampler.get(), &t, &eog, &buf[0], buf.size(), &len) ==
                LLM_OK);
        r.tokens.push_back(t);
        r.text.append(buf.data(), len);
        if (eog) break;
        r.logits.push_back(logits_of(ctx, m));
    }
    return r;
}

std::vector<llm_token> story_prompt(const llm_model *m) {
    return tokenize(m, "Once upon a time, there was a little girl named Lily");
}

} // namespace

TEST_CASE("state: a loaded state continues exactly as the saved context", "[state]") {
    auto kv = GENERATE(LLM_KV_F32, LLM_KV_F16);
    auto model = load_stories260k();
    const auto prompt = story_prompt(model.get());
    auto a = new_context(model.get(), 128, 1, kv);
    forward(a.get(), prompt);
    steps(a.get(), model.get(), 5); // part prompt, part generated
    const auto state = save(a.get());

    auto b = new_context(model.get(), 64, 1, kv); // a smaller n_ctx that still fits
    forward(b.get(), {1, 400, 401});              // to be replaced
    REQUIRE(llm_context_state_load(b.get(), state.data(), state.size()) == LLM_OK);
    CHECK(context_tokens(b.get()) == context_tokens(a.get()));
    CHECK(llm_context_position(b.get()) == llm_context_position(a.get()));
    CHECK(logits_of(b.get(), model.get()) == logits_of(a.get(), model.get()));

    const Run ra = steps(a.get(), model.get(), 20);
    const Run rb = steps(b.get(), model.get(), 20);
    CHECK(rb.tokens == ra.tokens);
    CHECK(rb.text == ra.text);
    CHECK(rb.logits == ra.logits);
    // Saving again gives the same bytes.
    CHECK(save(b.get()) == save(a.get()));
}

TEST_CASE("state: an empty context and one without logits round-trip", "[state]") {
    auto model = load_stories260k();
    auto a = new_context(model.get(), 32);
    auto b = new_context(model.get(), 32);
    forward(b.get(), {1, 400});
    const auto empty = save(a.get());
    REQUIRE(llm_context_state_load(b.get(), empty.data(), empty.size()) == LLM_OK);
    CHECK(llm_context_position(b.get()) == 0);
    CHECK(llm_context_logits(b.get()) == nullptr);

    forward(a.get(), {1, 400, 401});
    REQUIRE(llm_context_rewind(a.get(), 2) == LLM_OK); // no logits now
    const auto rewound = save(a.get());
    REQUIRE(llm_context_state_load(b.get(), rewound.data(), rewound.size()) == LLM_OK);
    CHECK(context_tokens(b.get()) == std::vector<llm_token>{1, 400});
    CHECK(llm_context_logits(b.get()) == nullptr);
    forward(a.get(), {402});
    forward(b.get(), {402});
    CHECK(logits_of(b.get(), model.get()) == logits_of(a.get(), model.get()));
}

TEST_CASE("state: buffer sizes", "[state]") {
    auto model = load_stories260k();
    auto ctx = new_context(model.get(), 32);
    forward(ctx.get(), {1, 400, 401});
    size_t need = 0;
    REQUIRE(llm_context_state_size(ctx.get(), &need) == LLM_OK);
    CHECK(need > 3 * 4 + 512 * 4);

    size_t n = 0;
    CHECK(llm_context_state_save(ctx.get(), nullptr, 0, &n) == LLM_ERR_BUFFER_TOO_SMALL);
    CHECK(n == need);
    std::vector<uint8_t> buf(need);
    n = 0;
    CHECK(llm_context_state_save(ctx.get(), buf.data(), need - 1, &n) == LLM_ERR_BUFFER_TOO_SMALL);
    CHECK(n == need);
    CHECK(llm_context_state_save(ctx.get(), buf.data(), need, &n) == LLM_OK);
    CHECK(n == need);

    CHECK(llm_context_state_size(ctx.get(), nullptr) == LLM_ERR_INVALID_ARGUMENT);
    CHECK(llm_context_state_size(nullptr, &n) == LLM_ERR_INVALID_ARGUMENT);
    CHECK(llm_context_state_save(ctx.get(), nullptr, 5, &n) == LLM_ERR_INVALID_ARGUMENT);
    CHECK(llm_context_state_load(ctx.get(), nullptr, 5) == LLM_ERR_INVALID_ARGUMENT);
    CHECK(llm_context_state_load(nullptr, buf.data(), buf.size()) == LLM_ERR_INVALID_ARGUMENT);
}

TEST_CASE("state: a copied prefix continues as a prefill from scratch", "[state]") {
    auto src_kv = GENERATE(LLM_KV_F32, LLM_KV_F16);
    auto dst_kv = GENERATE(LLM_KV_F32, LLM_KV_F16);
    auto model = load_stories260k();
    const auto system = story_prompt(model.get());
    const std::vector<llm_token> rest = {400, 401, 402, 403};
    const int32_t k = static_cast<int32_t>(system.size()) - 2; // a part of the source's tokens

    auto src = new_context(model.get(), 64, 1, src_kv);
    forward(src.get(), system);
    auto dst = new_context(model.get(), 48, 1, dst_kv);
    forward(dst.get(), {1, 300});
    REQUIRE(llm_context_copy_prefix(dst.get(), src.get(), k) == LLM_OK);
    CHECK(llm_context_position(dst.get()) == k);
    CHECK(llm_context_logits(dst.get()) == nullptr);
    forward(dst.get(), rest);

    std::vector<llm_token> all(system.begin(), system.begin() + k);
    all.insert(all.end(), rest.begin(), rest.end());
    CHECK(context_tokens(dst.get()) == all);
    const auto a = logits_of(dst.get(), model.get());
    // The same two forward calls in one context: bit-equal. Across KV types
    // the prefix was computed at the other precision: close, not equal.
    auto fresh = new_context(model.get(), 48, 1, dst_kv);
    forward(fresh.get(), std::vector<llm_token>(all.begin(), all.begin() + k));
    forward(fresh.get(), rest);
    const auto b = logits_of(fresh.get(), model.get());
    INFO("kv types " << src_kv << " -> " << dst_kv);
    if (src_kv == dst_kv)
        CHECK(a == b);
    else
        CHECK(max_abs_diff(a.data(), b.data(), a.size()) <= 5e-2f);
    // All in one prefill: the rows go through the layers in other batches.
    auto one = new_context(model.get(), 48, 1, dst_kv);
    forward(one.get(), all);
    const auto c = logits_of(one.get(), model.get());
    CHECK(max_abs_diff(a.data(), c.data(), a.size()) <= (src_kv == dst_kv ? 1e-4f : 5e-2f));

    // The whole position: the logits come along and generation goes on.
    auto whole = new_context(model.get(), 64, 1, src_kv);
    REQUIRE(llm_context_copy_prefix(whole.get(), src.get(), llm_context_position(src.get())) ==
            LLM_OK);
    CHECK(logits_of(whole.get(), model.get()) == logits_of(src.get(), model.get()));
    CHECK(steps(whole.get(), model.get(), 8).tokens == steps(src.get(), model.get(), 8).tokens);
}

TEST_CASE("state: copy_prefix refuses bad arguments and leaves dst as it was", "[state]") {
    auto model = load_stories260k();
    auto src = new_context(model.get(), 64);
    auto dst = new_context(model.get(), 4);
    forward(src.get(), {1, 400, 401, 402, 403, 404});
    forward(dst.get(), {1, 300});
    const auto before = logits_of(dst.get(), model.get());
    CHECK(llm_context_copy_prefix(dst.get(), src.get(), 7) == LLM_ERR_INVALID_ARGUMENT);
    CHECK(llm_context_copy_prefix(dst.get(), src.get(), -1) == LLM_ERR_INVALID_ARGUMENT);
    CHECK(llm_context_copy_prefix(dst.get(), dst.get(), 1) == LLM_ERR_INVALID_ARGUMENT);
    CHECK(llm_context_copy_prefix(nullptr, src.get(), 1) == LLM_ERR_INVALID_ARGUMENT);
    CHECK(llm_context_copy_prefix(dst.get(), src.get(), 5) == LLM_ERR_CONTEXT_FULL);
    CHECK(context_tokens(dst.get()) == std::vector<llm_token>{1, 300});
    CHECK(logits_of(dst.get(), model.get()) == before);
    CHECK(llm_context_copy_prefix(dst.get(), src.get(), 0) == LLM_OK);
    CHECK(llm_context_position(dst.get()) == 0);

    auto qwen = load_model(shared_path("models/qwen2-tiny"));
    auto other = new_context(qwen.get(), 16);
    CHECK(llm_context_copy_prefix(other.get(), src.get(), 2) == LLM_ERR_STATE_MISMATCH);
}

TEST_CASE("state: a state from another model is refused", "[state]") {
    auto model = load_stories260k();
    auto ctx = new_context(model.get(), 32);
    forward(ctx.get(), {1, 400, 401});
    const auto state = save(ctx.get());

    auto qwen = load_model(shared_path("models/qwen2-tiny"));
    auto q = new_context(qwen.get(), 32);
    CHECK(llm_context_state_load(q.get(), state.data(), state.size()) == LLM_ERR_STATE_MISMATCH);
    CHECK_THAT(std::string(llm_last_error()), Catch::Contains("n_layers"));
    CHECK(llm_context_position(q.get()) == 0);

    // The same checkpoint with other weight types is another model too.
    auto q8 = load_stories260k(LLM_WEIGHTS_Q8_0);
    auto c8 = new_context(q8.get(), 32);
    CHECK(llm_context_state_load(c8.get(), state.data(), state.size()) == LLM_ERR_STATE_MISMATCH);
    CHECK_THAT(std::string(llm_last_error()), Catch::Contains("weight type"));

    // The same checkpoint converted to Hugging Face's layout: its key rows
    // are permuted for the other RoPE pairing, so its KV cache differs.
    auto hf = load_model(shared_path("models/stories260K-hf"));
    auto chf = new_context(hf.get(), 32);
    CHECK(llm_context_state_load(chf.get(), state.data(), state.size()) == LLM_ERR_STATE_MISMATCH);

    // The same weights from a second load are not.
    auto again = load_stories260k();
    auto c2 = new_context(again.get(), 32);
    CHECK(llm_context_state_load(c2.get(), state.data(), state.size()) == LLM_OK);
}

TEST_CASE("state: more tokens than the context holds is CONTEXT_FULL", "[state]") {
    auto model = load_stories260k();
    auto ctx = new_context(model.get(), 32);
    forward(ctx.get(), {1, 400, 401, 402, 403, 404, 405, 406, 407});
    const auto state = save(ctx.get());
    auto small = new_context(model.get(), 8);
    CHECK(llm_context_state_load(small.get(), state.data(), state.size()) == LLM_ERR_CONTEXT_FULL);
    CHECK(llm_context_position(small.get()) == 0);
}

TEST_CASE("state: every truncation and random damage is refused cleanly", "[state]") {
    auto model = load_stories260k();
    auto ctx = new_context(model.get(), 32);
    forward(ctx.get(), {1, 400, 401, 402});
    const auto state = save(ctx.get());
    auto target = new_context(model.get(), 32);
    forward(target.get(), {1, 300});
    const auto before = logits_of(target.get(), model.get());
    auto unchanged = [&] {
        return context_tokens(target.get()) == std::vector<llm_token>{1, 300} &&
               logits_of(target.get(), model.get()) == before;
    };

    for (size_t len = 0; len < state.size(); ++len) {
        const llm_status s = llm_context_state_load(target.get(), state.data(), len);
        if (s != LLM_ERR_TRUNCATED && s != LLM_ERR_FORMAT) {
            INFO("length " << len);
            CHECK(s == LLM_ERR_TRUNCATED);
        }
    }
    CHECK(unchanged());
    std::vector<uint8_t> longer(state);
    longer.push_back(0);
    CHECK(llm_context_state_load(target.get(), longer.data(), longer.size()) == LLM_ERR_FORMAT);

    std::mt19937 rng(37);
    std::vector<uint8_t> damaged;
    for (int i = 0; i < 3000; ++i) {
        damaged = state;
        const int flips = 1 + static_cast<int>(rng() % 3);
        for (int f = 0; f < flips; ++f)
            damaged[rng() % damaged.size()] ^= static_cast<uint8_t>(1 + rng() % 255);
        const llm_status s = llm_context_state_load(target.get(), damaged.data(), damaged.size());
        if (s != LLM_ERR_FORMAT && s != LLM_ERR_TRUNCATED) {
            INFO("case " << i);
            CHECK(s == LLM_ERR_FORMAT);
        }
    }
    CHECK(unchanged());
    const std::string garbage = "not a state at all";
    CHECK(llm_context_state_load(target.get(), garbage.data(), garbage.size()) == LLM_ERR_FORMAT);
    CHECK_THAT(std::string(llm_last_error()), Catch::Contains("LLMSTATE"));
    CHECK(unchanged());
}

TEST_CASE("state: files", "[state]") {
    auto model = load_stories260k();
    auto ctx = new_context(model.get(), 32, 1, LLM_KV_F16);
    forward(ctx.get(), {1, 400, 401, 402});
    const std::string dir = temp_dir();
    const std::string path = dir + "/state.llmstate";
    REQUIRE(llm_context_state_save_file(ctx.get(), path.c_str()) == LLM_OK);
    CHECK(read_file(path).size() == save(ctx.get()).size());

    auto b = new_context(model.get(), 32, 1, LLM_KV_F16);
    REQUIRE(llm_context_state_load_file(b.get(), path.c_str()) == LLM_OK);
    CHECK(logits_of(b.get(), model.get()) == logits_of(ctx.get(), model.get()));
    CHECK(context_tokens(b.get()) == context_tokens(ctx.get()));

    CHECK(llm_context_state_load_file(b.get(), (dir + "/missing").c_str()) == LLM_ERR_NOT_FOUND);
    CHECK(llm_context_state_save_file(ctx.get(), (dir + "/no/such/dir/s").c_str()) ==
          LLM_ERR_NOT_FOUND);
    CHECK(llm_context_state_load_file(b.get(), dir.c_str()) == LLM_ERR_IO);
    const std::string bytes = read_file(path);
    write_file(dir + "/cut", bytes.substr(0, bytes.size() / 2));
    CHECK(llm_context_state_load_file(b.get(), (dir + "/cut").c_str()) == LLM_ERR_TRUNCATED);
    write_file(dir + "/empty", "");
    CHECK(llm_context_state_load_file(b.get(), (dir + "/empty").c_str()) == LLM_ERR_TRUNCATED);
    CHECK(llm_context_state_load_file(b.get(), nullptr) == LLM_ERR_INVALID_ARGUMENT);
    CHECK(llm_context_state_save_file(ctx.get(), nullptr) == LLM_ERR_INVALID_ARGUMENT);
    CHECK(context_tokens(b.get()) == context_tokens(ctx.get()));
}
