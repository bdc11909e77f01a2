// llm_embed and llm_model_default_pooling: each pooling against the
// per-token states, normalisation, determinism, chunked vs single-token runs,
// the pooling a model file asks for, and the errors.
#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>
#include <cstddef>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "support/api_helpers.h"
#include "support/gguf_test_writer.h"
#include "support/test_support.h"

using namespace test;

namespace {

ContextPtr embed_context(const llm_model *m, int32_t n_ctx = 0) {
    llm_context_params p = llm_context_default_params();
    p.n_ctx = n_ctx;
    p.n_threads = 2;
    p.embeddings = 1;
    llm_context *ctx = nullptr;
    REQUIRE(llm_context_new(m, &p, &ctx) == LLM_OK);
    return ContextPtr(ctx);
}

std::vector<float> embed(llm_context *ctx, const std::vector<llm_token> &ids, int32_t pooling,
                         int32_t normalize) {
    size_t need = 0;
    REQUIRE(llm_embed(ctx, ids.data(), ids.size(), pooling, normalize, nullptr, 0, &need) ==
            LLM_ERR_BUFFER_TOO_SMALL);
    std::vector<float> out(need);
    size_t n = 0;
    const llm_status s =
        llm_embed(ctx, ids.data(), ids.size(), pooling, normalize, out.data(), out.size(), &n);
    INFO(llm_last_error());
    REQUIRE(s == LLM_OK);
    REQUIRE(n == need);
    return out;
}

double norm(const float *v, size_t n) {
    double s = 0;
    for (size_t i = 0; i < n; ++i)
        s += double(v[i]) * v[i];
    return std::sqrt(s);
}

// Ids cycling through the vocabulary's ordinary range: `n` of them.
std::vector<llm_token> ids_of(const llm_model *m, size_t n) {
    std::vector<llm_token> ids;
    const llm_token bos = llm_model_bos(m);
    if (bos != LLM_TOKEN_NONE) ids.push_back(bos);
    for (size_t i = 0; ids.size() < n; ++i)
        ids.push_back(static_cast<llm_token>(5 + (i * 37) % 300));
    return ids;
}

} // namespace

TEST_CASE("embeddings: each pooling is what the per-token states give", "[embed]") {
    for (const char *path : {"models/stories260K.bin", "models/qwen2-tiny"}) {
        INFO(path);
        auto model = std::string(path).find(".bin") != std::string::npos
                         ? load_stories260k()
                         : load_model(shared_path(path));
        const size_t dim = static_cast<size_t>(llm_model_n_embd(model.get()));
        auto ctx = embed_context(model.get(), 64);
        // 40 tokens: more than one of the transformer's chunks (16 or more).
        const auto ids = ids_of(model.get(), 40);
        const auto states = embed(ctx.get(), ids, LLM_POOLING_NONE, 0);
        REQUIRE(states.size() == ids.size() * dim);
        CHECK(llm_context_position(ctx.get()) == 40);
        CHECK(llm_context_logits(ctx.get()) == nullptr);

        std::vector<double> mean(dim, 0.0);
        for (size_t t = 0; t < ids.size(); ++t)
            for (size_t i = 0; i < dim; ++i)
                mean[i] += states[t * dim + i] / double(ids.size());
        const auto m = embed(ctx.get(), ids, LLM_POOLING_MEAN, 0);
        const auto first = embed(ctx.get(), ids, LLM_POOLING_FIRST, 0);
        const auto last = embed(ctx.get(), ids, LLM_POOLING_LAST, 0);
        REQUIRE(m.size() == dim);
        for (size_t i = 0; i < dim; ++i) {
            CHECK(m[i] == Approx(mean[i]).margin(1e-5));
            CHECK(first[i] == states[i]);
            CHECK(last[i] == states[(ids.size() - 1) * dim + i]);
        }
        // Not all the same: the states differ from token to token.
        CHECK(max_abs_diff(first.data(), last.data(), dim) > 1e-3f);
    }
}

TEST_CASE("embeddings: a token's state is that of its prefix run alone", "[embed]") {
    // Causal attention: state t depends on tokens 0..t only. The prefixes run
    // as one token (the single-token attention path), a chunk, or several
    // chunks (stories260K's are 16 tokens), against the full run's rows.
    for (const bool stories : {true, false}) {
        auto model = stories ? load_stories260k() : load_model(shared_path("models/qwen2-tiny"));
        const size_t dim = static_cast<size_t>(llm_model_n_embd(model.get()));
        auto ctx = embed_context(model.get(), 64);
        const auto ids = ids_of(model.get(), 40);
        const auto states = embed(ctx.get(), ids, LLM_POOLING_NONE, 0);
        for (size_t len : {size_t(1), size_t(2), size_t(16), size_t(17), size_t(33), size_t(40)}) {
            INFO("stories " << stories << " prefix " << len);
            const std::vector<llm_token> prefix(ids.begin(), ids.begin() + long(len));
            const auto last = embed(ctx.get(), prefix, LLM_POOLING_LAST, 0);
            CHECK(max_abs_diff(last.data(), &states[(len - 1) * dim], dim) < 1e-4f);
        }
    }
}

TEST_CASE("embeddings: normalisation, determinism, a second context", "[embed]") {
    auto model = load_model(shared_path("models/qwen2-tiny"));
    const size_t dim = static_cast<size_t>(llm_model_n_embd(model.get()));
    auto ctx = embed_context(model.get(), 64);
    const auto ids = tokenize(model.get(), "The quick brown fox jumps over the lazy dog.");
    for (int32_t pooling : {LLM_POOLING_MEAN, LLM_POOLING_LAST, LLM_POOLING_FIRST}) {
        const auto raw = embed(ctx.get(), ids, pooling, 0);
        const auto unit = embed(ctx.get(), ids, pooling, 1);
        CHECK(norm(unit.data(), dim) == Approx(1.0).margin(1e-5));
        const double n = norm(raw.data(), dim);
        for (size_t i = 0; i < dim; ++i)
            CHECK(unit[i] == Approx(raw[i] / n).margin(1e-6));
        CHECK(embed(ctx.get(), ids, pooling, 1) == unit); // same text, same vector
    }
    const auto rows = embed(ctx.get(), ids, LLM_POOLING_NONE, 1);
    for (size_t t = 0; t < ids.size(); ++t)
        CHECK(norm(&rows[t * dim], dim) == Approx(1.0).margin(1e-5));

    // A context used for generation first, and another context: the same.
    const auto want = embed(ctx.get(), ids, LLM_POOLING_MEAN, 1);
    REQUIRE(llm_forward(ctx.get(), ids.data(), ids.size()) == LLM_OK);
    CHECK(embed(ctx.get(), ids, LLM_POOLING_MEAN, 1) == want);
    auto other = embed_context(model.get(), 32);
    const auto again = embed(other.get(), ids, LLM_POOLING_MEAN, 1);
    CHECK(max_abs_diff(again.data(), want.data(), dim) < 1e-4f);
    // Generation still works on an embeddings context afterwards.
    REQUIRE(llm_forward(ctx.get(), ids.data(), 1) == LLM_OK);
    CHECK(llm_context_logits(ctx.get()) != nullptr);
}

TEST_CASE("embeddings: the model's default pooling", "[embed]") {
    auto plain = load_model(shared_path("models/qwen2-tiny"));
    CHECK(llm_model_default_pooling(plain.get()) == LLM_POOLING_MEAN);
    CHECK(llm_model_default_pooling(nullptr) == LLM_POOLING_MEAN);

    // A Hugging Face folder with sentence-transformers' modules.json and
    // Pooling config, as Qwen3-Embedding ships.
    const std::string dir = temp_dir() + "/st-model";
    const std::string src = shared_path("models/qwen2-tiny");
    std::filesystem::create_directories(dir + "/1_Pooling");
    for (const char *f :
         {"config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"})
        write_file(dir + "/" + f, read_file(src + "/" + f));
    write_file(
        dir + "/modules.json",
        R"([{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
                   {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
                   {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}])");
    write_file(dir + "/1_Pooling/config.json",
               R"({"word_embedding_dimension": 64, "pooling_mode_cls_token": false,
                   "pooling_mode_mean_tokens": false, "pooling_mode_lasttoken": true})");
    auto st = load_model(dir);
    CHECK(llm_model_default_pooling(st.get()) == LLM_POOLING_LAST);
    // DEFAULT then means LAST.
    auto ctx = embed_context(st.get(), 32);
    const auto ids = tokenize(st.get(), "hello world");
    CHECK(embed(ctx.get(), ids, LLM_POOLING_DEFAULT, 1) ==
          embed(ctx.get(), ids, LLM_POOLING_LAST, 1));

    write_file(dir + "/1_Pooling/config.json", R"({"pooling_mode_cls_token": true})");
    CHECK(llm_model_default_pooling(load_model(dir).get()) == LLM_POOLING_FIRST);
    write_file(dir + "/1_Pooling/config.json", "[not json");
    llm_model *bad = nullptr;
    CHECK(llm_model_load(dir.c_str(), nullptr, &bad) == LLM_ERR_FORMAT);
    CHECK(bad == nullptr);
    // A module path leaving the folder is refused.
    write_file(dir + "/modules.json",
               R"([{"path": "../x", "type": "sentence_transformers.models.Pooling"}])");
    CHECK(llm_model_load(dir.c_str(), nullptr, &bad) == LLM_ERR_FORMAT);

    // GGUF: <arch>.pooling_type, llama.cpp's numbering (3 = last, 2 = cls).
    for (auto [value, want] : {std::pair<uint32_t, int32_t>{3, LLM_POOLING_LAST},
                               {2, LLM_POOLING_FIRST},
                               {1, LLM_POOLING_MEAN},
                               {0, LLM_POOLING_MEAN}}) {
        GgufWriter w = make_gguf_model(GgufModelSpec{});
        w.add_u32("llama.pooling_type", value);
        const std::string file = temp_dir() + "/pool" + std::to_string(value) + ".gguf";
        write_file(file, w.build());
        CHECK(llm_model_default_pooling(load_model(file).get()) == want);
    }
}

TEST_CASE("embeddings: errors", "[embed]") {
    auto model = load_stories260k();
    const size_t dim = static_cast<size_t>(llm_model_n_embd(model.get()));
    const auto ids = ids_of(model.get(), 10);
    std::vector<float> buf(dim * ids.size());
    size_t n = 99;

    // A context not asked for embeddings.
    auto plain = new_context(model.get(), 16);
    CHECK(llm_embed(plain.get(), ids.data(), ids.size(), LLM_POOLING_MEAN, 1, buf.data(),
                    buf.size(), &n) == LLM_ERR_INVALID_ARGUMENT);
    CHECK_THAT(std::string(llm_last_error()), Catch::Contains("embeddings = 1"));
    CHECK(n == 0);

    auto ctx = embed_context(model.get(), 16);
    CHECK(llm_embed(nullptr, ids.data(), ids.size(), 0, 0, buf.data(), buf.size(), &n) ==
          LLM_ERR_INVALID_ARGUMENT);
    CHECK(llm_embed(ctx.get(), nullptr, 3, 0, 0, buf.data(), buf.size(), &n) ==
          LLM_ERR_INVALID_ARGUMENT);
    CHECK(llm_embed(ctx.get(), ids.data(), 0, 0, 0, buf.data(), buf.size(), &n) ==
          LLM_ERR_INVALID_ARGUMENT);
    CHECK(llm_embed(ctx.get(), ids.data(), ids.size(), 7, 0, buf.data(), buf.size(), &n) ==
          LLM_ERR_INVALID_ARGUMENT);
    CHECK(llm_embed(ctx.get(), ids.data(), ids.size(), 0, 2, buf.data(), buf.size(), &n) ==
          LLM_ERR_INVALID_ARGUMENT);
    CHECK(llm_embed(ctx.get(), ids.data(), ids.size(), 0, 0, nullptr, 5, &n) ==
          LLM_ERR_INVALID_ARGUMENT);

    // Buffers too small: the size needed, and nothing run.
    REQUIRE(llm_forward(ctx.get(), ids.data(), 2) == LLM_OK);
    CHECK(llm_embed(ctx.get(), ids.data(), ids.size(), LLM_POOLING_MEAN, 1, buf.data(), dim - 1,
                    &n) == LLM_ERR_BUFFER_TOO_SMALL);
    CHECK(n == dim);
    CHECK_THAT(std::string(llm_last_error()), Catch::Contains("are needed"));
    CHECK(llm_embed(ctx.get(), ids.data(), ids.size(), LLM_POOLING_NONE, 1, buf.data(), dim, &n) ==
          LLM_ERR_BUFFER_TOO_SMALL);
    CHECK(n == dim * ids.size());
    CHECK(llm_context_position(ctx.get()) == 2);

    // Out-of-range ids and a context too short: refused before running.
    std::vector<llm_token> bad = ids;
    bad[3] = llm_model_n_vocab(model.get());
    CHECK(llm_embed(ctx.get(), bad.data(), bad.size(), 0, 1, buf.data(), buf.size(), &n) ==
          LLM_ERR_TOKEN_OUT_OF_RANGE);
    const auto long_ids = ids_of(model.get(), 17);
    CHECK(llm_embed(ctx.get(), long_ids.data(), long_ids.size(), LLM_POOLING_NONE, 1, buf.data(),
                    buf.size(), &n) == LLM_ERR_CONTEXT_FULL);
    CHECK(llm_embed(ctx.get(), long_ids.data(), long_ids.size(), LLM_POOLING_LAST, 1, buf.data(),
                    buf.size(), &n) == LLM_ERR_CONTEXT_FULL);
    CHECK(llm_context_position(ctx.get()) == 2);
    const size_t huge = size_t(1) << 62;
    CHECK(llm_embed(ctx.get(), long_ids.data(), huge, LLM_POOLING_NONE, 1, buf.data(), buf.size(),
                    &n) == LLM_ERR_CONTEXT_FULL);

    // A pending cancel: CANCELLED, consumed, and the context left empty.
    llm_context_cancel(ctx.get());
    CHECK(llm_embed(ctx.get(), ids.data(), ids.size(), LLM_POOLING_MEAN, 1, buf.data(), buf.size(),
                    &n) == LLM_ERR_CANCELLED);
    CHECK(llm_context_position(ctx.get()) == 0);
    CHECK(llm_embed(ctx.get(), ids.data(), ids.size(), LLM_POOLING_MEAN, 1, buf.data(), buf.size(),
                    &n) == LLM_OK);
    CHECK(n == dim);

    // An older llm_context_params without the field: embeddings off.
    llm_context_params old = llm_context_default_params();
    old.embeddings = 1;
    old.struct_size = offsetof(llm_context_params, embeddings);
    llm_context *c = nullptr;
    REQUIRE(llm_context_new(model.get(), &old, &c) == LLM_OK);
    ContextPtr old_ctx(c);
    CHECK(llm_embed(old_ctx.get(), ids.data(), ids.size(), 0, 1, buf.data(), buf.size(), &n) ==
          LLM_ERR_INVALID_ARGUMENT);
    llm_context_params two = llm_context_default_params();
    two.embeddings = 2;
    CHECK(llm_context_new(model.get(), &two, &c) == LLM_ERR_INVALID_ARGUMENT);
}

TEST_CASE("embeddings: cancelling a long input from another thread", "[embed]") {
    auto model = load_model(shared_path("models/qwen2-tiny"));
    auto ctx = embed_context(model.get(), 512);
    const auto ids = ids_of(model.get(), 512);
    std::vector<float> buf(static_cast<size_t>(llm_model_n_embd(model.get())));
    std::atomic<bool> started{false};
    std::thread canceller([&] {
        while (!started.load())
            std::this_thread::yield();
        llm_context_cancel(ctx.get());
    });
    started.store(true);
    size_t n = 0;
    const llm_status s = llm_embed(ctx.get(), ids.data(), ids.size(), LLM_POOLING_MEAN, 1,
                                   buf.data(), buf.size(), &n);
    canceller.join();
    // The cancel may land after the last layer: then the call finished.
    CHECK((s == LLM_ERR_CANCELLED || s == LLM_OK));
    if (s == LLM_ERR_CANCELLED) CHECK(llm_context_position(ctx.get()) == 0);
    // Usable afterwards, and no cancel left pending.
    llm_context_reset(ctx.get());
    CHECK(llm_embed(ctx.get(), ids.data(), 4, LLM_POOLING_MEAN, 1, buf.data(), buf.size(), &n) ==
          LLM_OK);
}
