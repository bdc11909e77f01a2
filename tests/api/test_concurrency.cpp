// Many contexts on one shared model at once, and llm_context_cancel from
// another thread. tests/tsan/run_tsan.sh runs these under ThreadSanitizer.
#include <catch2/catch.hpp>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "support/api_helpers.h"
#include "support/llama2c_writer.h"
#include "support/test_support.h"

using namespace test;

namespace {

constexpr int kThreads = 8;

struct Run {
    std::vector<llm_token> ids;
    std::vector<float> last_logits;
    std::string text;
    bool operator==(const Run &o) const {
        return ids == o.ids && last_logits == o.last_logits && text == o.text;
    }
};

const char *const kPrompts[kThreads] = {
    "Once upon a time", "The dog", "Lily and Tom", "One day, a bird",
    "She was sad",      "",        "The sun was",  "A little cat named Max",
};

// One generation of job `i`: even jobs greedy, odd ones seeded sampling with
// temperature + top-p. Each has its own context (with 2 compute threads) and
// sampler; only the model is shared.
Run generate(const llm_model *m, int i) {
    Run r;
    llm_context_params cp = llm_context_default_params();
    cp.n_ctx = 96;
    cp.n_threads = 2;
    llm_context *ctx = nullptr;
    if (llm_context_new(m, &cp, &ctx) != LLM_OK) return r;
    llm_sampler_params sp = llm_sampler_default_params();
    sp.temperature = i % 2 ? 1.0f : 0.0f;
    sp.top_p = 0.9f;
    sp.seed = 1000 + static_cast<uint64_t>(i);
    llm_sampler *sampler = nullptr;
    llm_sampler_new(&sp, &sampler);
    llm_token prompt[64];
    size_t n = 0;
    llm_tokenize(m, kPrompts[i], std::strlen(kPrompts[i]), LLM_TOKENIZE_ADD_SPECIAL, prompt, 64,
                 &n);
    llm_generate_params gp = llm_generate_default_params();
    gp.stop_at_eog = 0;
    auto cb = [](const char *text, size_t len, llm_token t, void *user) -> int32_t {
        auto *run = static_cast<Run *>(user);
        run->ids.push_back(t);
        run->text.append(text, len);
        return 0;
    };
    llm_generate(ctx, sampler, prompt, n, &gp, cb, &r, nullptr);
    const float *l = llm_context_logits(ctx);
    if (l) r.last_logits.assign(l, l + llm_model_n_vocab(m));
    llm_sampler_free(sampler);
    llm_context_free(ctx);
    return r;
}

} // namespace

TEST_CASE("concurrency: 8 threads on one model give the sequential results", "[concurrency]") {
    // Exact shared steps: the threads' generations (sampled ones too) are
    // then the sequential ones bit for bit, whatever steps they share.
    auto model = load_with_env("LLM_BATCH_EXACT", "1", [] { return load_stories260k(); });
    std::vector<Run> sequential;
    for (int i = 0; i < kThreads; ++i) {
        sequential.push_back(generate(model.get(), i));
        REQUIRE(sequential.back().ids.size() > 20);
    }
    for (int round = 0; round < 2; ++round) {
        std::vector<Run> parallel(kThreads);
        std::vector<std::thread> threads;
        for (int i = 0; i < kThreads; ++i)
            threads.emplace_back([&, i] { parallel[i] = generate(model.get(), i); });
        for (auto &t : threads)
            t.join();
        for (int i = 0; i < kThreads; ++i) {
            INFO("round " << round << ", job " << i);
            CHECK(parallel[i] == sequential[i]);
        }
    }
}

TEST_CASE("concurrency: tokenizer calls on a shared model from many threads", "[concurrency]") {
    auto model = load_stories260k();
    const std::string text =
        "Once upon a time, there was a little girl named Lily. \xF0\x9F\x98\x80";
    const auto ids = tokenize(model.get(), text);
    std::atomic<int> mismatches{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i)
        threads.emplace_back([&] {
            for (int k = 0; k < 50; ++k) {
                llm_token out[128];
                size_t n = 0;
                llm_tokenize(model.get(), text.data(), text.size(), LLM_TOKENIZE_ADD_SPECIAL, out,
                             128, &n);
                char buf[256];
                size_t len = 0;
                llm_detokenize(model.get(), out, n, 0, buf, sizeof buf, &len);
                if (std::vector<llm_token>(out, out + n) != ids || std::string(buf, len) != text)
                    ++mismatches;
            }
        });
    for (auto &t : threads)
        t.join();
    CHECK(mismatches == 0);
}

TEST_CASE("concurrency: cancel from another thread stops llm_generate at the next token",
          "[concurrency][cancel]") {
    auto model = load_stories260k();
    const llm_model *m = model.get();
    auto ctx = new_context(m, 256, 2);
    auto sampler = greedy_sampler();
    const auto prompt = tokenize(m, "Once upon a time");

    // The callback holds generation at the 10th token until the other thread
    // has cancelled: the call must then return CANCELLED without producing
    // another token.
    struct Shared {
        llm_context *ctx;
        std::mutex mu;
        std::condition_variable cv;
        bool at_10 = false, cancelled = false;
        std::vector<llm_token> ids;
    } sh;
    sh.ctx = ctx.get();
    auto cb = [](const char *, size_t, llm_token t, void *user) -> int32_t {
        auto *s = static_cast<Shared *>(user);
        s->ids.push_back(t);
        if (s->ids.size() == 10) {
            std::unique_lock<std::mutex> lock(s->mu);
            s->at_10 = true;
            s->cv.notify_all();
            s->cv.wait(lock, [&] { return s->cancelled; });
        }
        return 0;
    };
    std::thread canceller([&] {
        std::unique_lock<std::mutex> lock(sh.mu);
        sh.cv.wait(lock, [&] { return sh.at_10; });
        llm_context_cancel(sh.ctx);
        sh.cancelled = true;
        sh.cv.notify_all();
    });
    llm_generate_params gp = llm_generate_default_params();
    gp.stop_at_eog = 0;
    int32_t generated = 0;
    llm_status s = llm_generate(ctx.get(), sampler.get(), prompt.data(), prompt.size(), &gp, cb,
                                &sh, &generated);
    canceller.join();
    CHECK(s == LLM_ERR_CANCELLED);
    CHECK(generated == 10);
    CHECK(sh.ids.size() == 10);
    CHECK(llm_context_position(ctx.get()) == static_cast<int32_t>(prompt.size() + 10));

    // The context stays usable and the request was consumed: generation goes
    // on exactly as an uninterrupted greedy run.
    gp.max_tokens = 20;
    std::vector<llm_token> rest;
    auto collect = [](const char *, size_t, llm_token t, void *user) -> int32_t {
        static_cast<std::vector<llm_token> *>(user)->push_back(t);
        return 0;
    };
    CHECK(llm_generate(ctx.get(), sampler.get(), nullptr, 0, &gp, collect, &rest, &generated) ==
          LLM_OK);
    CHECK(generated == 20);
    auto all = sh.ids;
    all.insert(all.end(), rest.begin(), rest.end());
    auto reference = greedy(m, prompt, static_cast<int>(prompt.size() + 29));
    reference.resize(30);
    CHECK(all == reference);
}

TEST_CASE("concurrency: cancel during a long prefill leaves a consistent context",
          "[concurrency][cancel]") {
    auto model = load_stories260k();
    const llm_model *m = model.get();
    std::vector<llm_token> prompt;
    for (int i = 0; i < 256; ++i) // 4 batches of 64
        prompt.push_back(3 + (i * 37) % 500);
    auto reference = new_context(m, 512, 1);
    REQUIRE(llm_forward(reference.get(), prompt.data(), prompt.size()) == LLM_OK);
    const float *expected = llm_context_logits(reference.get());

    for (int attempt = 0; attempt < 3; ++attempt) {
        auto ctx = new_context(m, 512, 2);
        std::atomic<bool> started{false}, finished{false};
        llm_status s = LLM_OK;
        std::thread worker([&] {
            started = true;
            s = llm_forward(ctx.get(), prompt.data(), prompt.size());
            finished = true;
        });
        while (!started)
            std::this_thread::yield();
        llm_context_cancel(ctx.get()); // lands before, during or after the prefill
        worker.join();
        INFO("attempt " << attempt << ": " << llm_status_str(s));
        REQUIRE((s == LLM_OK || s == LLM_ERR_CANCELLED));
        const int32_t pos = llm_context_position(ctx.get());
        if (s == LLM_ERR_CANCELLED) {
            // Whole batches of the prompt stay in the cache; their ids are
            // reported; the rest can be fed to finish the prefill.
            CHECK(pos < 256);
            size_t n = 0;
            std::vector<llm_token> kept(static_cast<size_t>(pos));
            REQUIRE(llm_context_tokens(ctx.get(), kept.data(), kept.size(), &n) == LLM_OK);
            CHECK(std::equal(kept.begin(), kept.end(), prompt.begin()));
            REQUIRE(llm_forward(ctx.get(), prompt.data() + pos, prompt.size() - pos) == LLM_OK);
        } else {
            CHECK(pos == 256);
            llm_context_reset(ctx.get()); // a cancel that came too late stays pending
            REQUIRE(llm_forward(ctx.get(), prompt.data(), prompt.size()) == LLM_OK);
        }
        CHECK(max_abs_diff(llm_context_logits(ctx.get()), expected,
                           static_cast<size_t>(llm_model_n_vocab(m))) == 0.0f);
    }
}

TEST_CASE("cancel before a call is consumed by that call, and reset clears it", "[cancel]") {
    auto model = load_stories260k();
    auto ctx = new_context(model.get(), 32);
    llm_token bos = 1;
    llm_context_cancel(ctx.get());
    CHECK(llm_forward(ctx.get(), &bos, 1) == LLM_ERR_CANCELLED);
    CHECK(llm_context_position(ctx.get()) == 0);
    CHECK(llm_forward(ctx.get(), &bos, 1) == LLM_OK);

    llm_context_cancel(ctx.get());
    llm_context_reset(ctx.get());
    CHECK(llm_forward(ctx.get(), &bos, 1) == LLM_OK);

    // A callback returning non-zero also ends llm_generate with CANCELLED.
    auto sampler = greedy_sampler();
    auto stop = [](const char *, size_t, llm_token, void *) -> int32_t { return 1; };
    int32_t generated = 0;
    CHECK(llm_generate(ctx.get(), sampler.get(), nullptr, 0, nullptr, stop, nullptr, &generated) ==
          LLM_ERR_CANCELLED);
    CHECK(generated == 1);
}

TEST_CASE("a cancelled step consumes no text: streamed UTF-8 stays intact", "[cancel]") {
    // A scripted model: after <0xC3> comes <0xA9> and after <0xA9> <0xC3>
    // (byte pieces are id = byte + 3), so it writes "ééé..." one byte at a
    // time and every other step holds a lead byte back.
    const llm_token c3 = 3 + 0xC3, a9 = 3 + 0xA9;
    std::vector<int32_t> next(260);
    for (int32_t i = 0; i < 260; ++i)
        next[static_cast<size_t>(i)] = i;
    next[c3] = a9;
    next[a9] = c3;
    const std::string dir = temp_dir();
    write_file(dir + "/model.bin", make_llama2c_successor_checkpoint(next, 64));
    auto model = load_model(dir + "/model.bin", shared_path("models/tok512.bin").c_str());
    auto ctx = new_context(model.get(), 64);
    auto sampler = greedy_sampler();
    const llm_token prompt[] = {1, a9};
    REQUIRE(llm_forward(ctx.get(), prompt, 2) == LLM_OK);

    std::string text;
    std::vector<char> buf(llm_context_step_max_bytes(ctx.get()));
    for (int i = 0; i < 12; ++i) {
        if (i % 3 == 1) llm_context_cancel(ctx.get());
        llm_token t;
        int32_t eog = 0;
        size_t n = 99;
        llm_status s =
            llm_context_step(ctx.get(), sampler.get(), &t, &eog, buf.data(), buf.size(), &n);
        CHECK((t == c3 || t == a9));
        if (s == LLM_ERR_CANCELLED) {
            CHECK(n == 0);
            continue;
        }
        REQUIRE(s == LLM_OK);
        text.append(buf.data(), n);
    }
    // llm_generate drops a cancelled token's text the same way.
    auto collect = [](const char *p, size_t len, llm_token, void *user) -> int32_t {
        static_cast<std::string *>(user)->append(p, len);
        return 0;
    };
    llm_generate_params gp = llm_generate_default_params();
    gp.max_tokens = 5;
    for (int i = 0; i < 3; ++i) {
        llm_context_cancel(ctx.get());
        CHECK(llm_generate(ctx.get(), sampler.get(), nullptr, 0, &gp, collect, &text, nullptr) ==
              LLM_ERR_CANCELLED);
        CHECK(llm_generate(ctx.get(), sampler.get(), nullptr, 0, &gp, collect, &text, nullptr) ==
              LLM_OK);
    }
    // Exactly the text of what entered the context after the prompt, minus a
    // trailing lead byte still held back.
    size_t n = 0;
    std::vector<llm_token> ids(64);
    REQUIRE(llm_context_tokens(ctx.get(), ids.data(), ids.size(), &n) == LLM_OK);
    ids.resize(n);
    std::string expected;
    for (size_t i = 2; i + 1 < ids.size(); i += 2)
        expected += "\xC3\xA9";
    CHECK(text == expected);
    CHECK(text.find("\xEF\xBF\xBD") == std::string::npos); // no U+FFFD
}
