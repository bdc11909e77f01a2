// Automatic batching: contexts of one model driven from many threads at once
// (llm_forward, llm_context_step, llm_generate) are gathered into shared
// steps by the model's scheduler. Every context must get what it gets alone,
// with threads joining and leaving mid-stream, long prompts arriving
// meanwhile (processed in chunks between the others' steps) and cancels:
// the same tokens and logits within float rounding (steps of enough rows go
// through the batch kernels), and bit for bit on a model loaded with
// LLM_BATCH_EXACT=1. The "auto batch: 16
// threads" case also runs under ThreadSanitizer (tests/tsan/run_tsan.sh).
//
// Catch2's assertions are not thread-safe: worker threads only record, the
// main thread checks.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "support/api_helpers.h"
#include "support/test_support.h"

using namespace test;

namespace {

// What one thread runs on its own context.
enum class Api { Forward, Step, Generate };

struct Job {
    std::vector<llm_token> prompt;
    int join = 0;  // starts once all threads together have made this many tokens
    int steps = 0; // tokens it generates before it leaves
    Api api = Api::Forward;
    int threads = 1; // the context's compute threads
};

// What a run of a job gave: its tokens, a digest of the logits after each
// (Forward and Step: they may be read between calls) and the last logits.
struct Trace {
    llm_status status = LLM_ERR_INTERNAL;
    std::string error;
    std::vector<llm_token> tokens;
    std::vector<uint64_t> digests;
    // Per digest: the best logit's lead over the second, relative to the
    // largest logit's size (a near-tie may go either way within rounding).
    std::vector<float> margins;
    std::vector<float> last_logits;
    int32_t position = -1;
};

uint64_t digest(const float *l, size_t n) {
    uint64_t h = 1469598103934665603ull; // FNV-1a over the bytes: equal = identical
    const auto *b = reinterpret_cast<const unsigned char *>(l);
    for (size_t i = 0; i < n * sizeof(float); ++i)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

llm_token argmax(const float *l, int32_t n) {
    return static_cast<llm_token>(std::max_element(l, l + n) - l);
}

float relative_margin(const float *l, int32_t n) {
    float a = -INFINITY, b = -INFINITY, scale = 1.0f;
    for (int32_t i = 0; i < n; ++i) {
        scale = std::max(scale, std::fabs(l[i]));
        if (l[i] > a) {
            b = a;
            a = l[i];
        } else if (l[i] > b) {
            b = l[i];
        }
    }
    return (a - b) / scale;
}

float max_abs(const std::vector<float> &v) {
    float m = 1.0f;
    for (float x : v)
        m = std::max(m, std::fabs(x));
    return m;
}

// Runs `job` on a fresh context. With `progress`, first waits for it to reach
// job.join and adds each token made; `cancel_at` > 0: raises the context's
// cancel (as another thread would) once that many tokens are made.
Trace run_job(const llm_model *m, const Job &job, std::atomic<int> *progress, int cancel_at = 0) {
    Trace t;
    if (progress)
        while (progress->load() < job.join)
            std::this_thread::sleep_for(std::chrono::microseconds(200));
    llm_context_params cp = llm_context_default_params();
    cp.n_ctx = 512;
    cp.n_threads = job.threads;
    llm_context *ctx = nullptr;
    llm_sampler_params sp = llm_sampler_default_params();
    sp.temperature = 0.0f;
    llm_sampler *sampler = nullptr;
    if (llm_context_new(m, &cp, &ctx) != LLM_OK || llm_sampler_new(&sp, &sampler) != LLM_OK) {
        t.error = llm_last_error();
        llm_context_free(ctx);
        return t;
    }
    const int32_t vocab = llm_model_n_vocab(m);
    const float *l = nullptr;
    auto made = [&](llm_token tok) {
        t.tokens.push_back(tok);
        if (progress) progress->fetch_add(1);
        if (cancel_at && static_cast<int>(t.tokens.size()) == cancel_at) llm_context_cancel(ctx);
    };
    llm_status s = LLM_OK;
    if (job.api == Api::Generate) {
        struct Ctx {
            decltype(made) *fn;
        } c{&made};
        llm_generate_params gp = llm_generate_default_params();
        gp.max_tokens = job.steps;
        gp.stop_at_eog = 0;
        s = llm_generate(
            ctx, sampler, job.prompt.data(), job.prompt.size(), &gp,
            [](const char *, size_t, llm_token tok, void *user) -> int32_t {
                (*static_cast<Ctx *>(user)->fn)(tok);
                return 0;
            },
            &c, nullptr);
    } else {
        s = llm_forward(ctx, job.prompt.data(), job.prompt.size());
        std::vector<char> buf(llm_context_step_max_bytes(ctx));
        for (int i = 0; s == LLM_OK && i < job.steps; ++i) {
            llm_token tok = LLM_TOKEN_NONE;
            if (job.api == Api::Forward) {
                tok = argmax(llm_context_logits(ctx), vocab);
                s = llm_forward(ctx, &tok, 1);
            } else {
                int32_t eog = 0;
                size_t n = 0;
                s = llm_context_step(ctx, sampler, &tok, &eog, buf.data(), buf.size(), &n);
                if (eog) break;
            }
            if (s != LLM_OK) break;
            l = llm_context_logits(ctx);
            t.digests.push_back(digest(l, static_cast<size_t>(vocab)));
            t.margins.push_back(relative_margin(l, vocab));
            made(tok);
        }
    }
    t.status = s;
    if (s != LLM_OK) t.error = llm_last_error();
    if ((l = llm_context_logits(ctx))) t.last_logits.assign(l, l + vocab);
    t.position = llm_context_position(ctx);
    llm_sampler_free(sampler);
    llm_context_free(ctx);
    return t;
}

// Every job on its own thread, all started at once (each then waits for
// its join point).
std::vector<Trace> run_together(const llm_model *m, const std::vector<Job> &jobs,
                                int cancel_job = -1, int cancel_at = 0) {
    std::atomic<int> progress{0};
    std::vector<Trace> traces(jobs.size());
    std::vector<std::thread> threads;
    for (size_t i = 0; i < jobs.size(); ++i)
        threads.emplace_back([&, i] {
            traces[i] =
                run_job(m, jobs[i], &progress, static_cast<int>(i) == cancel_job ? cancel_at : 0);
        });
    for (auto &th : threads)
        th.join();
    return traces;
}

ModelPtr load_unbatched(const std::string &path, const char *tokenizer) {
    return load_with_env("LLM_AUTO_BATCH", "0", [&] { return load_model(path, tokenizer); });
}
ModelPtr load_exact(const std::string &path, const char *tokenizer) {
    return load_with_env("LLM_BATCH_EXACT", "1", [&] { return load_model(path, tokenizer); });
}

// Jobs of different prompt lengths (one long enough for many chunks), APIs,
// start points and lengths; some start at once, the others join mid-stream,
// and they leave after different counts.
std::vector<Job> mixed_jobs(const llm_model *m, int n) {
    const char *const texts[] = {"Once upon a time", "The dog",     "Lily and Tom went to the park",
                                 "One day, a bird",  "She was sad", "A little cat named Max"};
    std::vector<Job> jobs;
    for (int i = 0; i < n; ++i) {
        Job j;
        j.prompt = i == 3 ? long_prompt(m, 300) : tokenize(m, texts[i % 6]);
        j.join = i < 3 ? 0 : 3 * i;
        j.steps = 12 + (i * 7) % 25;
        j.api = static_cast<Api>(i % 3);
        j.threads = 1 + i % 2;
        jobs.push_back(j);
    }
    return jobs;
}

// exact: the same bits. Otherwise the same greedy tokens up to the lone
// run's first near-tie (after it the runs may part), and when there was
// none, the last logits within 1e-4 of the largest one's size.
void check_same(const std::vector<Trace> &got, const std::vector<Trace> &ref, bool exact) {
    REQUIRE(got.size() == ref.size());
    for (size_t i = 0; i < ref.size(); ++i) {
        INFO("job " << i << ": " << got[i].error << (exact ? " (exact)" : " (batch kernels)"));
        REQUIRE(ref[i].status == LLM_OK);
        CHECK(got[i].status == LLM_OK);
        CHECK(got[i].position == ref[i].position);
        REQUIRE(got[i].last_logits.size() == ref[i].last_logits.size());
        const float diff = max_abs_diff(got[i].last_logits.data(), ref[i].last_logits.data(),
                                        ref[i].last_logits.size());
        if (exact) {
            CHECK(got[i].tokens == ref[i].tokens);
            CHECK(got[i].digests == ref[i].digests);
            CHECK(diff == 0.0f);
            continue;
        }
        // Token k + 1 is picked from the logits after token k.
        size_t clear = ref[i].tokens.size();
        for (size_t k = 0; k < ref[i].margins.size(); ++k)
            if (ref[i].margins[k] <= 2e-4f) {
                clear = std::min(clear, k + 1);
                break;
            }
        REQUIRE(got[i].tokens.size() == ref[i].tokens.size());
        CHECK(std::equal(ref[i].tokens.begin(), ref[i].tokens.begin() + clear,
                         got[i].tokens.begin()));
        if (clear == ref[i].tokens.size()) CHECK(diff <= 1e-4f * max_abs(ref[i].last_logits));
    }
}

void check_model(const std::string &path, const char *tokenizer, int n_jobs) {
    ModelPtr reference = load_unbatched(path, tokenizer);
    ModelPtr exact = load_exact(path, tokenizer);
    ModelPtr model = load_model(path, tokenizer);
    const auto jobs = mixed_jobs(model.get(), n_jobs);
    std::vector<Trace> alone;
    for (const Job &j : jobs)
        alone.push_back(run_job(reference.get(), j, nullptr));
    for (int round = 0; round < 2; ++round) {
        INFO("round " << round);
        check_same(run_together(exact.get(), jobs), alone, true);
        check_same(run_together(model.get(), jobs), alone, false);
    }
}

} // namespace

TEST_CASE("auto batch: 8 threads on stories260K give each context's lone results", "[auto_batch]") {
    static const std::string tok = shared_path("models/tok512.bin");
    check_model(shared_path("models/stories260K.bin"), tok.c_str(), 8);
}

TEST_CASE("auto batch: 8 threads on qwen2-tiny give each context's lone results", "[auto_batch]") {
    check_model(shared_path("models/qwen2-tiny"), nullptr, 8);
}

TEST_CASE("auto batch: one context cancelled mid-stream, the others unaffected",
          "[auto_batch][cancel]") {
    auto model = load_with_env("LLM_BATCH_EXACT", "1", [] { return load_stories260k(); });
    const auto jobs = mixed_jobs(model.get(), 6);
    std::vector<Trace> alone;
    for (const Job &j : jobs)
        alone.push_back(run_job(model.get(), j, nullptr));
    for (int victim : {0, 1, 2}) { // llm_forward, llm_context_step, llm_generate
        INFO("cancelled job " << victim);
        auto got = run_together(model.get(), jobs, victim, 6);
        const Trace &v = got[static_cast<size_t>(victim)];
        CHECK(v.status == LLM_ERR_CANCELLED);
        // It stopped after the token during which it was cancelled, and every
        // token it kept is its lone run's.
        REQUIRE(v.tokens.size() == 6);
        CHECK(std::equal(v.tokens.begin(), v.tokens.end(), alone[victim].tokens.begin()));
        CHECK(v.position ==
              static_cast<int32_t>(jobs[static_cast<size_t>(victim)].prompt.size() + 6));
        got.erase(got.begin() + victim);
        auto rest = alone;
        rest.erase(rest.begin() + victim);
        check_same(got, rest, true);
    }
}

TEST_CASE("auto batch: a bad token from one thread fails only that call", "[auto_batch]") {
    auto model = load_stories260k();
    const auto jobs = mixed_jobs(model.get(), 4);
    std::vector<Trace> alone;
    for (const Job &j : jobs)
        alone.push_back(run_job(model.get(), j, nullptr));
    std::atomic<int> bad{0};
    std::thread spoiler([&] {
        llm_context *ctx = nullptr;
        llm_context_params cp = llm_context_default_params();
        cp.n_ctx = 4;
        cp.n_threads = 1;
        if (llm_context_new(model.get(), &cp, &ctx) != LLM_OK) return;
        const llm_token wrong[] = {-5, 100000};
        const llm_token fine[] = {1, 2, 3, 4, 5};
        for (int k = 0; k < 50; ++k) {
            bad += llm_forward(ctx, &wrong[k % 2], 1) == LLM_ERR_TOKEN_OUT_OF_RANGE;
            bad += llm_forward(ctx, fine, 5) == LLM_ERR_CONTEXT_FULL;
        }
        llm_context_free(ctx);
    });
    const auto got = run_together(model.get(), jobs);
    spoiler.join();
    CHECK(bad == 100);
    check_same(got, alone, false);
}

TEST_CASE("auto batch: streams keep decoding while a long prompt is prefilled", "[auto_batch]") {
    auto model = load_stories260k();
    const llm_model *m = model.get();
    const auto prompt = long_prompt(m, 400);
    auto reference = new_context(m, 512, 1);
    REQUIRE(llm_forward(reference.get(), prompt.data(), prompt.size()) == LLM_OK);
    const std::vector<float> expected(llm_context_logits(reference.get()),
                                      llm_context_logits(reference.get()) + llm_model_n_vocab(m));

    // Three streams decode until the prompt is in; the prompt's thread
    // starts once they run. Their tokens made during its prefill count.
    std::atomic<bool> prefilling{false}, prefilled{false};
    std::atomic<int> during{0}, started{0};
    std::vector<Trace> streams(3);
    std::vector<std::thread> threads;
    for (int i = 0; i < 3; ++i)
        threads.emplace_back([&, i] {
            Trace &t = streams[static_cast<size_t>(i)];
            llm_context_params cp = llm_context_default_params();
            cp.n_ctx = 512;
            cp.n_threads = 1;
            llm_context *ctx = nullptr;
            if (llm_context_new(m, &cp, &ctx) != LLM_OK) return;
            const llm_token bos = 1;
            t.status = llm_forward(ctx, &bos, 1);
            ++started;
            while (t.status == LLM_OK && !prefilled) {
                if (llm_context_position(ctx) >= 500) { // start over: room for ever
                    llm_context_rewind(ctx, 0);
                    t.status = llm_forward(ctx, &bos, 1);
                    continue;
                }
                llm_token tok = argmax(llm_context_logits(ctx), llm_model_n_vocab(m));
                t.status = llm_forward(ctx, &tok, 1);
                if (prefilling && !prefilled) ++during;
            }
            llm_context_free(ctx);
        });
    while (started < 3)
        std::this_thread::yield();
    auto ctx = new_context(m, 512, 2);
    prefilling = true;
    const llm_status s = llm_forward(ctx.get(), prompt.data(), prompt.size());
    prefilled = true;
    for (auto &th : threads)
        th.join();
    REQUIRE(s == LLM_OK);
    const float *l = llm_context_logits(ctx.get());
    CHECK(std::memcmp(l, expected.data(), expected.size() * sizeof(float)) == 0);
    for (const Trace &t : streams)
        CHECK(t.status == LLM_OK);
    // The prompt went in chunks between the streams' steps (not as one
    // block that held them all until it was done).
    CHECK(during > 0);
}

TEST_CASE("auto batch: 16 threads joining, leaving, cancelled", "[auto_batch][tsan_auto]") {
    auto model = load_stories260k();
    const auto jobs = mixed_jobs(model.get(), 16);
    std::vector<Trace> alone;
    for (const Job &j : jobs)
        alone.push_back(run_job(model.get(), j, nullptr));
    auto got = run_together(model.get(), jobs, 5, 4);
    CHECK(got[5].status == LLM_ERR_CANCELLED);
    CHECK(got[5].tokens.size() == 4);
    got.erase(got.begin() + 5);
    alone.erase(alone.begin() + 5);
    check_same(got, alone, false);
}
