// Misuse of every function in llm.h: NULL handles and buffers, zero-length
// inputs, out-of-range ids, too-small buffers, old params structs, freeing
// NULL. Each is an error status with a message or a documented no-op.
#include <catch2/catch.hpp>

#include <cstddef>
#include <cstring>

#include "support/api_helpers.h"
#include "support/test_support.h"

using namespace test;

namespace {

// The call failed with `status`, said why, and left *n_out at `n_out`.
#define CHECK_FAILS(call, status)                                                                  \
    do {                                                                                           \
        llm_status s_ = (call);                                                                    \
        INFO(#call << " -> " << s_ << " " << llm_last_error());                                    \
        CHECK(s_ == (status));                                                                     \
        CHECK(std::strlen(llm_last_error()) > 0);                                                  \
    } while (0)

struct Fixture {
    ModelPtr model = load_stories260k();
    const llm_model *m = model.get();
    ContextPtr ctx = new_context(m, 32);
    SamplerPtr sampler = greedy_sampler();
    llm_detokenizer *d = nullptr;
    Fixture() { REQUIRE(llm_detokenizer_new(m, &d) == LLM_OK); }
    ~Fixture() { llm_detokenizer_free(d); }
};

} // namespace

TEST_CASE("status strings and the error message are never NULL", "[misuse]") {
    for (llm_status s = 5; s >= -40; --s)
        CHECK(llm_status_str(s) != nullptr);
    CHECK(std::string(llm_status_str(-999)) == "unknown status");
    CHECK(std::string(llm_status_str(LLM_ERR_CONTEXT_FULL)) == "context full");
    CHECK(llm_last_error() != nullptr);
    CHECK(llm_version() != nullptr);
    CHECK(llm_version_number() == LLM_VERSION_NUMBER);
}

TEST_CASE("every *_free and void setter accepts NULL", "[misuse]") {
    llm_model_free(nullptr);
    llm_context_free(nullptr);
    llm_sampler_free(nullptr);
    llm_detokenizer_free(nullptr);
    llm_detokenizer_reset(nullptr);
    llm_context_reset(nullptr);
    llm_context_cancel(nullptr);
    llm_sampler_reseed(nullptr, 1);
    llm_log_set(nullptr, nullptr, LLM_LOG_DEBUG);
    SUCCEED("no crash");
}

TEST_CASE("getters on NULL return 0, NULL or LLM_TOKEN_NONE", "[misuse]") {
    CHECK(llm_model_n_vocab(nullptr) == 0);
    CHECK(llm_model_n_ctx_train(nullptr) == 0);
    CHECK(llm_model_n_embd(nullptr) == 0);
    CHECK(llm_model_n_layer(nullptr) == 0);
    CHECK(llm_model_n_head(nullptr) == 0);
    CHECK(llm_model_n_head_kv(nullptr) == 0);
    CHECK(llm_model_n_params(nullptr) == 0);
    CHECK(llm_model_weight_bytes(nullptr) == 0);
    CHECK(llm_model_weight_type(nullptr) == LLM_WEIGHTS_AUTO);
    CHECK(llm_model_arch(nullptr) != nullptr);
    CHECK(llm_model_bos(nullptr) == LLM_TOKEN_NONE);
    CHECK(llm_model_eos(nullptr) == LLM_TOKEN_NONE);
    CHECK(llm_token_is_eog(nullptr, 2) == 0);
    CHECK(llm_token_is_special(nullptr, 1) == 0);
    CHECK(llm_detokenizer_max_bytes(nullptr) == 0);
    CHECK(llm_context_position(nullptr) == 0);
    CHECK(llm_context_n_ctx(nullptr) == 0);
    CHECK(llm_context_logits(nullptr) == nullptr);
    CHECK(llm_context_step_max_bytes(nullptr) == 0);
}

TEST_CASE("NULL arguments are INVALID_ARGUMENT and out-params are cleared", "[misuse]") {
    Fixture f;
    const llm_model *m = f.m;
    llm_context *ctx = f.ctx.get();
    llm_sampler *sampler = f.sampler.get();
    const std::string path = shared_path("models/stories260K.bin");
    llm_token ids[4] = {1, 400, 15, 7};
    char buf[256];
    size_t n = 77;

    // Model.
    llm_model *out_model = reinterpret_cast<llm_model *>(ids);
    CHECK_FAILS(llm_model_load(nullptr, nullptr, &out_model), LLM_ERR_INVALID_ARGUMENT);
    CHECK(out_model == nullptr);
    CHECK_FAILS(llm_model_load(path.c_str(), nullptr, nullptr), LLM_ERR_INVALID_ARGUMENT);

    // Tokenizer.
    CHECK_FAILS(llm_tokenize(nullptr, "a", 1, 0, ids, 4, &n), LLM_ERR_INVALID_ARGUMENT);
    CHECK(n == 0);
    CHECK_FAILS(llm_tokenize(m, nullptr, 3, 0, ids, 4, &n), LLM_ERR_INVALID_ARGUMENT);
    CHECK_FAILS(llm_tokenize(m, "a", 1, 0, nullptr, 4, &n), LLM_ERR_INVALID_ARGUMENT);
    CHECK_FAILS(llm_tokenize(m, "a", 1, 0x100, ids, 4, &n), LLM_ERR_INVALID_ARGUMENT);
    CHECK_FAILS(llm_token_to_piece(nullptr, 5, buf, sizeof buf, &n), LLM_ERR_INVALID_ARGUMENT);
    CHECK_FAILS(llm_token_to_piece(m, 5, nullptr, 8, &n), LLM_ERR_INVALID_ARGUMENT);
    CHECK_FAILS(llm_detokenize(nullptr, ids, 2, 0, buf, sizeof buf, &n), LLM_ERR_INVALID_ARGUMENT);
    CHECK_FAILS(llm_detokenize(m, nullptr, 2, 0, buf, sizeof buf, &n), LLM_ERR_INVALID_ARGUMENT);
    CHECK_FAILS(llm_detokenize(m, ids, 2, 0, nullptr, 8, &n), LLM_ERR_INVALID_ARGUMENT);
    llm_detokenizer *out_d = reinterpret_cast<llm_detokenizer *>(ids);
    CHECK_FAILS(llm_detokenizer_new(nullptr, &out_d), LLM_ERR_INVALID_ARGUMENT);
    CHECK(out_d == nullptr);
    CHECK_FAILS(llm_detokenizer_new(m, nullptr), LLM_ERR_INVALID_ARGUMENT);
    CHECK_FAILS(llm_detokenizer_push(nullptr, 5, buf, sizeof buf, &n), LLM_ERR_INVALID_ARGUMENT);
    CHECK_FAILS(llm_detokenizer_push(f.d, 5, nullptr, 8, &n), LLM_ERR_INVALID_ARGUMENT);
    CHECK_FAILS(llm_detokenizer_flush(nullptr, buf, sizeof buf, &n), LLM_ERR_INVALID_ARGUMENT);
    CHECK_FAILS(llm_detokenizer_flush(f.d, nullptr, 8, &n), LLM_ERR_INVALID_ARGUMENT);

    // Chat.
    llm_chat_message msg{"user", "hi"}, null_role{nullptr, "hi"}, null_content{"user", nullptr};
    CHECK_FAILS(llm_chat_format(nullptr, &msg, 1, 1, buf, sizeof buf, &n),
                LLM_ERR_INVALID_ARGUMENT);
    CHECK_FAILS(llm_chat_format(m, nullptr, 1, 1, buf, sizeof buf, &n), LLM_ERR_INVALID_ARGUMENT);
    CHECK_FAILS(llm_chat_format(m, &msg, 1, 1, nullptr, 8, &n), LLM_ERR_INVALID_ARGUMENT);
    CHECK_FAILS(llm_chat_format(m, &null_role, 1, 1, buf, sizeof buf, &n),
                LLM_ERR_INVALID_ARGUMENT);
    CHECK_FAILS(llm_chat_format(m, &null_content, 1, 1, buf, sizeof buf, &n),
                LLM_ERR_INVALID_ARGUMENT);

    // Context.
    llm_context *out_ctx = reinterpret_cast<llm_context *>(ids);
    CHECK_FAILS(llm_context_new(nullptr, nullptr, &out_ctx), LLM_ERR_INVALID_ARGUMENT);
    CHECK(out_ctx == nullptr);
    CHECK_FAILS(llm_context_new(m, nullptr, nullptr), LLM_ERR_INVALID_ARGUMENT);
    CHECK_FAILS(llm_forward(nullptr, ids, 1), LLM_ERR_INVALID_ARGUMENT);
    CHECK_FAILS(llm_forward(ctx, nullptr, 1), LLM_ERR_INVALID_ARGUMENT);
    float logits[4];
    CHECK_FAILS(llm_context_copy_logits(nullptr, logits, 4, &n), LLM_ERR_INVALID_ARGUMENT);
    CHECK_FAILS(llm_context_tokens(nullptr, ids, 4, &n), LLM_ERR_INVALID_ARGUMENT);
    CHECK_FAILS(llm_context_tokens(ctx, nullptr, 4, &n), LLM_ERR_INVALID_ARGUMENT);
    CHECK_FAILS(llm_context_rewind(nullptr, 0), LLM_ERR_INVALID_ARGUMENT);

    // Sampler and generation.
    llm_sampler *out_s = reinterpret_cast<llm_sampler *>(ids);
    CHECK_FAILS(llm_sampler_new(nullptr, nullptr), LLM_ERR_INVALID_ARGUMENT);
    llm_token t = 5;
    CHECK_FAILS(llm_sample(nullptr, ctx, &t), LLM_ERR_INVALID_ARGUMENT);
    CHECK(t == LLM_TOKEN_NONE);
    CHECK_FAILS(llm_sample(sampler, nullptr, &t), LLM_ERR_INVALID_ARGUMENT);
    CHECK_FAILS(llm_sample(sampler, ctx, nullptr), LLM_ERR_INVALID_ARGUMENT);
    int32_t eog = 3;
    std::vector<char> step_buf(llm_context_step_max_bytes(ctx));
    CHECK_FAILS(llm_context_step(nullptr, sampler, &t, &eog, step_buf.data(), step_buf.size(), &n),
                LLM_ERR_INVALID_ARGUMENT);
    CHECK(eog == 0);
    CHECK_FAILS(llm_context_step(ctx, nullptr, &t, &eog, step_buf.data(), step_buf.size(), &n),
                LLM_ERR_INVALID_ARGUMENT);
    CHECK_FAILS(llm_context_step(ctx, sampler, nullptr, &eog, step_buf.data(), step_buf.size(), &n),
                LLM_ERR_INVALID_ARGUMENT);
    CHECK_FAILS(llm_context_step(ctx, sampler, &t, &eog, nullptr, 8, &n), LLM_ERR_INVALID_ARGUMENT);
    int32_t generated = 9;
    CHECK_FAILS(llm_generate(nullptr, sampler, ids, 1, nullptr, nullptr, nullptr, &generated),
                LLM_ERR_INVALID_ARGUMENT);
    CHECK(generated == 0);
    CHECK_FAILS(llm_generate(ctx, nullptr, ids, 1, nullptr, nullptr, nullptr, &generated),
                LLM_ERR_INVALID_ARGUMENT);
    CHECK_FAILS(llm_generate(ctx, sampler, nullptr, 1, nullptr, nullptr, nullptr, &generated),
                LLM_ERR_INVALID_ARGUMENT);
    (void)out_s;
    // Nothing above touched the context.
    CHECK(llm_context_position(ctx) == 0);
}

TEST_CASE("optional out-params may be NULL", "[misuse]") {
    Fixture f;
    llm_token ids[8];
    CHECK(llm_tokenize(f.m, "hi", 2, LLM_TOKENIZE_ADD_SPECIAL, ids, 8, nullptr) == LLM_OK);
    CHECK(llm_tokenize(f.m, "hi", 2, 0, nullptr, 0, nullptr) == LLM_ERR_BUFFER_TOO_SMALL);
    llm_token prompt[] = {1, 403};
    CHECK(llm_forward(f.ctx.get(), prompt, 2) == LLM_OK);
    llm_token t;
    std::vector<char> buf(llm_context_step_max_bytes(f.ctx.get()));
    CHECK(llm_context_step(f.ctx.get(), f.sampler.get(), &t, nullptr, buf.data(), buf.size(),
                           nullptr) == LLM_OK);
    llm_generate_params gp = llm_generate_default_params();
    gp.max_tokens = 2;
    CHECK(llm_generate(f.ctx.get(), f.sampler.get(), nullptr, 0, &gp, nullptr, nullptr, nullptr) ==
          LLM_OK);
}

TEST_CASE("zero-length inputs", "[misuse]") {
    Fixture f;
    size_t n = 99;
    llm_token ids[4];
    // Empty text: nothing, or just BOS.
    CHECK(llm_tokenize(f.m, nullptr, 0, 0, ids, 4, &n) == LLM_OK);
    CHECK(n == 0);
    CHECK(llm_tokenize(f.m, "", 0, LLM_TOKENIZE_ADD_SPECIAL, ids, 4, &n) == LLM_OK);
    REQUIRE(n == 1);
    CHECK(ids[0] == llm_model_bos(f.m));
    // No ids: empty text.
    char buf[8];
    CHECK(llm_detokenize(f.m, nullptr, 0, 0, buf, sizeof buf, &n) == LLM_OK);
    CHECK(n == 0);
    CHECK(llm_detokenize(f.m, nullptr, 0, 0, nullptr, 0, &n) == LLM_OK);
    // Forwarding nothing is refused (there would be no logits to show).
    CHECK_FAILS(llm_forward(f.ctx.get(), ids, 0), LLM_ERR_INVALID_ARGUMENT);
    CHECK(llm_context_position(f.ctx.get()) == 0);
    // No messages: empty chat (or UNSUPPORTED for a model without a template).
    llm_status s = llm_chat_format(f.m, nullptr, 0, 0, buf, sizeof buf, &n);
    CHECK((s == LLM_OK || s == LLM_ERR_UNSUPPORTED));
    // Generating from an empty prompt with no state has nothing to sample.
    CHECK_FAILS(
        llm_generate(f.ctx.get(), f.sampler.get(), nullptr, 0, nullptr, nullptr, nullptr, nullptr),
        LLM_ERR_INVALID_ARGUMENT);
    // Sampling, stepping and copying logits before any forward.
    llm_token t;
    CHECK_FAILS(llm_sample(f.sampler.get(), f.ctx.get(), &t), LLM_ERR_INVALID_ARGUMENT);
    float logits[4];
    CHECK_FAILS(llm_context_copy_logits(f.ctx.get(), logits, 4, &n), LLM_ERR_INVALID_ARGUMENT);
    CHECK(llm_context_logits(f.ctx.get()) == nullptr);
    CHECK(llm_context_tokens(f.ctx.get(), nullptr, 0, &n) == LLM_OK);
    CHECK(n == 0);
    // Flushing a fresh detokenizer writes nothing.
    CHECK(llm_detokenizer_flush(f.d, nullptr, 0, &n) == LLM_OK);
    CHECK(n == 0);
}

TEST_CASE("token ids out of range are TOKEN_OUT_OF_RANGE and consume nothing", "[misuse]") {
    Fixture f;
    const llm_token n_vocab = llm_model_n_vocab(f.m);
    char buf[64];
    size_t n = 0;
    for (llm_token bad : {-1, n_vocab, n_vocab + 1000, INT32_MIN, INT32_MAX}) {
        INFO("id " << bad);
        llm_token seq[] = {1, 400, bad};
        CHECK_FAILS(llm_forward(f.ctx.get(), seq, 3), LLM_ERR_TOKEN_OUT_OF_RANGE);
        CHECK_THAT(std::string(llm_last_error()), Catch::Contains(std::to_string(bad)));
        CHECK(llm_context_position(f.ctx.get()) == 0);
        CHECK_FAILS(llm_detokenize(f.m, seq, 3, 0, buf, sizeof buf, &n),
                    LLM_ERR_TOKEN_OUT_OF_RANGE);
        CHECK_FAILS(llm_token_to_piece(f.m, bad, buf, sizeof buf, &n), LLM_ERR_TOKEN_OUT_OF_RANGE);
        CHECK_FAILS(llm_detokenizer_push(f.d, bad, buf, sizeof buf, &n),
                    LLM_ERR_TOKEN_OUT_OF_RANGE);
        CHECK(llm_token_is_special(f.m, bad) == 0);
        CHECK(llm_token_is_eog(f.m, bad) == 0);
    }
    // The detokenizer kept no state from the refused ids.
    llm_token bos = 1, once = 403;
    REQUIRE(llm_detokenizer_push(f.d, bos, buf, sizeof buf, &n) == LLM_OK);
    REQUIRE(llm_detokenizer_push(f.d, once, buf, sizeof buf, &n) == LLM_OK);
    std::string piece(buf, n);
    CHECK(piece == detokenize(f.m, {bos, once}));
}

TEST_CASE("too-small buffers: BUFFER_TOO_SMALL, the size needed, nothing consumed", "[misuse]") {
    Fixture f;
    const std::string text = "Once upon a time, there was a big dog.";
    size_t need = 0, n = 0;
    // Size query.
    CHECK_FAILS(
        llm_tokenize(f.m, text.data(), text.size(), LLM_TOKENIZE_ADD_SPECIAL, nullptr, 0, &need),
        LLM_ERR_BUFFER_TOO_SMALL);
    REQUIRE(need > 2);
    std::vector<llm_token> ids(need);
    CHECK_FAILS(llm_tokenize(f.m, text.data(), text.size(), LLM_TOKENIZE_ADD_SPECIAL, ids.data(),
                             need - 1, &n),
                LLM_ERR_BUFFER_TOO_SMALL);
    CHECK(n == need);
    CHECK(llm_tokenize(f.m, text.data(), text.size(), LLM_TOKENIZE_ADD_SPECIAL, ids.data(), need,
                       &n) == LLM_OK);
    CHECK(n == need);

    // Detokenize.
    CHECK_FAILS(llm_detokenize(f.m, ids.data(), ids.size(), 0, nullptr, 0, &need),
                LLM_ERR_BUFFER_TOO_SMALL);
    CHECK(need == text.size());
    std::string out(need, '\0');
    CHECK_FAILS(llm_detokenize(f.m, ids.data(), ids.size(), 0, out.data(), need - 1, &n),
                LLM_ERR_BUFFER_TOO_SMALL);
    CHECK(n == need);
    CHECK_THAT(std::string(llm_last_error()), Catch::Contains(std::to_string(need)));
    CHECK(llm_detokenize(f.m, ids.data(), ids.size(), 0, out.data(), need, &n) == LLM_OK);
    CHECK(out == text);

    // Token piece.
    CHECK_FAILS(llm_token_to_piece(f.m, ids[1], nullptr, 0, &need), LLM_ERR_BUFFER_TOO_SMALL);
    CHECK(need > 0);

    // The detokenizer consumes nothing when refused: the retry gives the
    // same text as an uninterrupted stream.
    std::string streamed;
    for (llm_token t : ids) {
        char small[1];
        llm_status s = llm_detokenizer_push(f.d, t, small, 0, &need);
        if (s == LLM_OK) continue; // nothing to write
        CHECK(s == LLM_ERR_BUFFER_TOO_SMALL);
        std::string piece(need, '\0');
        CHECK(llm_detokenizer_push(f.d, t, piece.data(), piece.size(), &n) == LLM_OK);
        CHECK(n == need);
        streamed += piece;
    }
    CHECK(streamed == text);

    // Logits and tokens.
    REQUIRE(llm_forward(f.ctx.get(), ids.data(), ids.size()) == LLM_OK);
    CHECK_FAILS(llm_context_copy_logits(f.ctx.get(), nullptr, 0, &need), LLM_ERR_BUFFER_TOO_SMALL);
    CHECK(need == static_cast<size_t>(llm_model_n_vocab(f.m)));
    std::vector<float> logits(need);
    CHECK(llm_context_copy_logits(f.ctx.get(), logits.data(), need, &n) == LLM_OK);
    CHECK(std::memcmp(logits.data(), llm_context_logits(f.ctx.get()), need * sizeof(float)) == 0);
    CHECK_FAILS(llm_context_tokens(f.ctx.get(), nullptr, 0, &need), LLM_ERR_BUFFER_TOO_SMALL);
    CHECK(need == ids.size());

    // A step buffer below llm_context_step_max_bytes is refused before sampling.
    const size_t max = llm_context_step_max_bytes(f.ctx.get());
    std::vector<char> step(max);
    llm_token t = 0;
    CHECK_FAILS(
        llm_context_step(f.ctx.get(), f.sampler.get(), &t, nullptr, step.data(), max - 1, &need),
        LLM_ERR_BUFFER_TOO_SMALL);
    CHECK(need == max);
    CHECK(llm_context_position(f.ctx.get()) == static_cast<int32_t>(ids.size()));
}

TEST_CASE("params structs: NULL means defaults, shorter (older) structs keep defaults for "
          "the missing fields, garbage sizes are refused",
          "[misuse]") {
    Fixture f;
    llm_sampler *s = nullptr;
    CHECK(llm_sampler_new(nullptr, &s) == LLM_OK);
    llm_sampler_free(s);

    // A caller built against a header whose sampler params ended before
    // `seed`: the library must not read past struct_size.
    struct Old {
        llm_sampler_params p;
        unsigned char guard[64];
    } old;
    std::memset(&old, 0xAB, sizeof old);
    old.p = llm_sampler_default_params();
    old.p.struct_size = offsetof(llm_sampler_params, seed);
    std::memset(&old.p.seed, 0xAB, sizeof old.p.seed); // garbage past struct_size
    REQUIRE(llm_sampler_new(&old.p, &s) == LLM_OK);
    SamplerPtr from_old(s);
    REQUIRE(llm_sampler_new(nullptr, &s) == LLM_OK); // the default seed
    SamplerPtr from_defaults(s);
    llm_token prompt[] = {1, 403};
    REQUIRE(llm_forward(f.ctx.get(), prompt, 2) == LLM_OK);
    for (int i = 0; i < 50; ++i) {
        llm_token a, b;
        REQUIRE(llm_sample(from_old.get(), f.ctx.get(), &a) == LLM_OK);
        REQUIRE(llm_sample(from_defaults.get(), f.ctx.get(), &b) == LLM_OK);
        CHECK(a == b);
    }

    // Context params without n_threads (older): n_ctx is still honoured.
    llm_context_params cp = llm_context_default_params();
    cp.struct_size = offsetof(llm_context_params, n_threads);
    cp.n_ctx = 16;
    cp.n_threads = -12345; // outside struct_size: never read
    llm_context *ctx = nullptr;
    REQUIRE(llm_context_new(f.m, &cp, &ctx) == LLM_OK);
    CHECK(llm_context_n_ctx(ctx) == 16);
    llm_context_free(ctx);

    // Context params of 1.0 (no kv_type): an fp32 cache, whatever follows.
    cp = llm_context_default_params();
    cp.struct_size = offsetof(llm_context_params, kv_type);
    cp.kv_type = 77; // outside struct_size: never read
    REQUIRE(llm_context_new(f.m, &cp, &ctx) == LLM_OK);
    llm_context_free(ctx);

    // Generate params holding only struct_size: all defaults.
    llm_generate_params gp = llm_generate_default_params();
    gp.struct_size = sizeof(uint32_t);
    gp.max_tokens = -5; // not read
    llm_token bos[] = {1};
    auto c = new_context(f.m, 4);
    CHECK(llm_generate(c.get(), f.sampler.get(), bos, 1, &gp, nullptr, nullptr, nullptr) ==
          LLM_ERR_CONTEXT_FULL);

    // A newer, longer struct: the known prefix is used.
    struct Newer {
        llm_context_params p;
        int32_t future_field;
    } newer;
    newer.p = llm_context_default_params();
    newer.p.struct_size = sizeof newer;
    newer.p.n_ctx = 8;
    newer.future_field = 7;
    REQUIRE(llm_context_new(f.m, &newer.p, &ctx) == LLM_OK);
    CHECK(llm_context_n_ctx(ctx) == 8);
    llm_context_free(ctx);

    // Uninitialised structs.
    for (uint32_t bad : {0u, 2u, 0xFFFFFFFFu}) {
        cp = llm_context_default_params();
        cp.struct_size = bad;
        ctx = reinterpret_cast<llm_context *>(&cp);
        CHECK_FAILS(llm_context_new(f.m, &cp, &ctx), LLM_ERR_INVALID_ARGUMENT);
        CHECK(ctx == nullptr);
        CHECK_THAT(std::string(llm_last_error()), Catch::Contains("default_params"));
    }
}

TEST_CASE("bad parameter values are INVALID_ARGUMENT or BAD_DIMENSIONS", "[misuse]") {
    Fixture f;
    llm_context_params cp = llm_context_default_params();
    llm_context *ctx = nullptr;
    cp.n_ctx = llm_model_n_ctx_train(f.m) + 1;
    CHECK_FAILS(llm_context_new(f.m, &cp, &ctx), LLM_ERR_BAD_DIMENSIONS);
    cp.n_ctx = -1;
    CHECK_FAILS(llm_context_new(f.m, &cp, &ctx), LLM_ERR_BAD_DIMENSIONS);
    cp = llm_context_default_params();
    cp.n_threads = -1;
    CHECK_FAILS(llm_context_new(f.m, &cp, &ctx), LLM_ERR_INVALID_ARGUMENT);
    for (int32_t bad : {-1, 2, 1000}) {
        cp = llm_context_default_params();
        cp.kv_type = bad;
        CHECK_FAILS(llm_context_new(f.m, &cp, &ctx), LLM_ERR_INVALID_ARGUMENT);
        CHECK_THAT(std::string(llm_last_error()), Catch::Contains("kv_type"));
    }

    const float nan = std::numeric_limits<float>::quiet_NaN();
    llm_sampler *s = nullptr;
    auto sampler_with = [&](auto set) {
        llm_sampler_params p = llm_sampler_default_params();
        set(p);
        return llm_sampler_new(&p, &s);
    };
    CHECK_FAILS(sampler_with([](auto &p) { p.temperature = -1.0f; }), LLM_ERR_INVALID_ARGUMENT);
    CHECK_FAILS(sampler_with([&](auto &p) { p.temperature = nan; }), LLM_ERR_INVALID_ARGUMENT);
    CHECK_FAILS(sampler_with([](auto &p) { p.top_p = 1.5f; }), LLM_ERR_INVALID_ARGUMENT);
    CHECK_FAILS(sampler_with([&](auto &p) { p.top_p = nan; }), LLM_ERR_INVALID_ARGUMENT);
    CHECK_FAILS(sampler_with([](auto &p) { p.min_p = -0.1f; }), LLM_ERR_INVALID_ARGUMENT);
    CHECK_FAILS(sampler_with([](auto &p) { p.top_k = -1; }), LLM_ERR_INVALID_ARGUMENT);
    CHECK_FAILS(sampler_with([](auto &p) { p.repeat_penalty = 0.0f; }), LLM_ERR_INVALID_ARGUMENT);
    CHECK(s == nullptr);

    llm_generate_params gp = llm_generate_default_params();
    gp.max_tokens = -1;
    llm_token prompt[] = {1};
    CHECK_FAILS(
        llm_generate(f.ctx.get(), f.sampler.get(), prompt, 1, &gp, nullptr, nullptr, nullptr),
        LLM_ERR_INVALID_ARGUMENT);
    CHECK(llm_context_position(f.ctx.get()) == 0);
}
