// Sampler properties over many draws, and draw-for-draw agreement with an
// independent transcription of llama2.c run.c's sampler (temperature +
// top-p with its xorshift RNG).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "sampler/sampler.h"

using namespace llm;

namespace {

// Distinct logits (no ties, so every order is well defined).
std::vector<float> random_logits(int n, uint32_t seed, float scale = 4.0f) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> d(0.0f, scale);
    std::vector<float> v(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i)
        v[static_cast<size_t>(i)] = d(rng) + static_cast<float>(i) * 1e-4f;
    return v;
}

std::vector<double> probabilities(const std::vector<float> &logits, double temperature) {
    const double mx = *std::max_element(logits.begin(), logits.end());
    std::vector<double> p(logits.size());
    double sum = 0;
    for (size_t i = 0; i < p.size(); ++i)
        sum += p[i] = std::exp((logits[i] - mx) / temperature);
    for (double &v : p)
        v /= sum;
    return p;
}

// Ids by decreasing probability.
std::vector<int> ranked(const std::vector<double> &p) {
    std::vector<int> ids(p.size());
    std::iota(ids.begin(), ids.end(), 0);
    std::sort(ids.begin(), ids.end(), [&](int a, int b) { return p[a] > p[b]; });
    return ids;
}

std::vector<int32_t> draws(Sampler &s, const std::vector<float> &logits, int n,
                           const std::vector<int32_t> &history = {}) {
    std::vector<int32_t> out;
    for (int i = 0; i < n; ++i)
        out.push_back(s.sample(logits.data(), static_cast<int32_t>(logits.size()), history.data(),
                               history.size()));
    return out;
}

// ---- llama2.c run.c's sampler, transcribed plainly ------------------------

struct RunCSampler {
    float temperature, topp;
    unsigned long long state;

    unsigned int random_u32() {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        return static_cast<unsigned int>((state * 0x2545F4914F6CDD1Dull) >> 32);
    }
    float random_f32() { return static_cast<float>(random_u32() >> 8) / 16777216.0f; }

    static void softmax(float *x, int size) {
        float max_val = x[0];
        for (int i = 1; i < size; i++)
            if (x[i] > max_val) max_val = x[i];
        float sum = 0.0f;
        for (int i = 0; i < size; i++) {
            x[i] = std::exp(x[i] - max_val);
            sum += x[i];
        }
        for (int i = 0; i < size; i++)
            x[i] /= sum;
    }
    static int sample_mult(const float *probabilities, int n, float coin) {
        float cdf = 0.0f;
        for (int i = 0; i < n; i++) {
            cdf += probabilities[i];
            if (coin < cdf) return i;
        }
        return n - 1;
    }
    struct ProbIndex {
        float prob;
        int index;
    };
    static int sample_topp(const float *probabilities, int n, float topp, float coin) {
        std::vector<ProbIndex> probindex(static_cast<size_t>(n));
        int n0 = 0;
        const float cutoff = (1.0f - topp) / static_cast<float>(n - 1);
        for (int i = 0; i < n; i++)
            if (probabilities[i] >= cutoff)
                probindex[static_cast<size_t>(n0++)] = {probabilities[i], i};
        std::qsort(probindex.data(), static_cast<size_t>(n0), sizeof(ProbIndex),
                   [](const void *a, const void *b) {
                       const auto *x = static_cast<const ProbIndex *>(a);
                       const auto *y = static_cast<const ProbIndex *>(b);
                       return x->prob > y->prob ? -1 : x->prob < y->prob ? 1 : 0;
                   });
        float cumulative_prob = 0.0f;
        int last_idx = n0 - 1;
        for (int i = 0; i < n0; i++) {
            cumulative_prob += probindex[static_cast<size_t>(i)].prob;
            if (cumulative_prob > topp) {
                last_idx = i;
                break;
            }
        }
        const float r = coin * cumulative_prob;
        float cdf = 0.0f;
        for (int i = 0; i <= last_idx; i++) {
            cdf += probindex[static_cast<size_t>(i)].prob;
            if (r < cdf) return probindex[static_cast<size_t>(i)].index;
        }
        return probindex[static_cast<size_t>(last_idx)].index;
    }
    int sample(std::vector<float> logits) {
        const int n = static_cast<int>(logits.size());
        if (temperature == 0.0f)
            return static_cast<int>(std::max_element(logits.begin(), logits.end()) -
                                    logits.begin());
        for (int q = 0; q < n; q++)
            logits[static_cast<size_t>(q)] /= temperature;
        softmax(logits.data(), n);
        const float coin = random_f32();
        if (topp <= 0 || topp >= 1) return sample_mult(logits.data(), n, coin);
        return sample_topp(logits.data(), n, topp, coin);
    }
};

} // namespace

TEST_CASE("temperature 0 is argmax", "[sampler]") {
    for (uint32_t seed = 1; seed <= 20; ++seed) {
        auto logits = random_logits(512, seed);
        SamplerConfig c;
        c.temperature = 0.0f;
        c.top_k = 5; // ignored when greedy
        Sampler s(c);
        const auto best = std::max_element(logits.begin(), logits.end()) - logits.begin();
        CHECK(s.sample(logits.data(), 512, nullptr, 0) == best);
        CHECK(argmax(logits.data(), 512) == best);
    }
}

TEST_CASE("a fixed seed reproduces, and reseed restarts the sequence", "[sampler]") {
    auto logits = random_logits(300, 3);
    SamplerConfig c;
    c.temperature = 1.3f;
    c.top_p = 0.95f;
    c.top_k = 40;
    c.seed = 12345;
    Sampler a(c), b(c);
    const auto first = draws(a, logits, 500);
    CHECK(draws(b, logits, 500) == first);
    a.reseed(12345);
    CHECK(draws(a, logits, 500) == first);
    c.seed = 12346;
    Sampler other(c);
    CHECK(draws(other, logits, 500) != first);
    // Seed 0 is replaced by a fixed constant: still deterministic.
    c.seed = 0;
    Sampler z1(c), z2(c);
    CHECK(draws(z1, logits, 100) == draws(z2, logits, 100));
}

TEST_CASE("top-p never picks outside the nucleus, and reaches all of it", "[sampler]") {
    for (float top_p : {0.5f, 0.8f, 0.9f, 0.99f}) {
        for (uint32_t seed : {1u, 2u, 3u}) {
            auto logits = random_logits(512, seed * 7, 2.0f);
            const float temperature = 0.8f;
            const auto p = probabilities(logits, temperature);
            const auto order = ranked(p);
            // llama2.c's nucleus: the shortest prefix whose mass exceeds top_p.
            std::set<int> nucleus;
            double mass = 0;
            for (int id : order) {
                nucleus.insert(id);
                mass += p[static_cast<size_t>(id)];
                if (mass > top_p) break;
            }
            SamplerConfig c;
            c.temperature = temperature;
            c.top_p = top_p;
            c.seed = seed;
            Sampler s(c);
            std::set<int> seen;
            for (int32_t t : draws(s, logits, 4000)) {
                INFO("top_p " << top_p << " picked " << t);
                REQUIRE(nucleus.count(t) == 1);
                seen.insert(t);
            }
            // Members with a fair share of the mass all show up.
            for (int id : nucleus)
                if (p[static_cast<size_t>(id)] > 0.01) CHECK(seen.count(id) == 1);
        }
    }
}

TEST_CASE("top-k never picks outside the k best", "[sampler]") {
    for (int k : {1, 2, 5, 40}) {
        auto logits = random_logits(512, 11, 1.0f);
        const auto order = ranked(probabilities(logits, 1.0));
        const std::set<int> best(order.begin(), order.begin() + k);
        SamplerConfig c;
        c.temperature = 1.5f;
        c.top_p = 1.0f;
        c.top_k = k;
        c.seed = 99;
        Sampler s(c);
        std::set<int> seen;
        for (int32_t t : draws(s, logits, 3000)) {
            REQUIRE(best.count(t) == 1);
            seen.insert(t);
        }
        CHECK(seen.size() == static_cast<size_t>(k)); // flat-ish logits: all k appear
    }
}

TEST_CASE("min-p drops tokens below min_p times the top probability", "[sampler]") {
    for (float min_p : {0.05f, 0.2f, 0.5f}) {
        auto logits = random_logits(256, 5, 1.5f);
        const auto p = probabilities(logits, 1.0);
        const double p_max = *std::max_element(p.begin(), p.end());
        SamplerConfig c;
        c.temperature = 1.0f;
        c.top_p = 1.0f;
        c.min_p = min_p;
        c.seed = 4;
        Sampler s(c);
        for (int32_t t : draws(s, logits, 3000)) {
            INFO("min_p " << min_p << " picked " << t);
            REQUIRE(p[static_cast<size_t>(t)] >= min_p * p_max * (1 - 1e-5));
        }
    }
}

TEST_CASE("repetition penalty: recent tokens are discouraged, older ones are not", "[sampler]") {
    std::vector<float> logits(10, 0.0f);
    logits[5] = 3.0f; // best
    logits[6] = 2.0f; // second
    SamplerConfig c;
    c.temperature = 0.0f;
    c.repeat_penalty = 2.0f; // 3 / 2 = 1.5 < 2
    c.repeat_last_n = 2;
    Sampler s(c);
    const std::vector<int32_t> recent = {1, 5}, old = {5, 1, 2};
    CHECK(draws(s, logits, 1, recent)[0] == 6);
    CHECK(draws(s, logits, 1, old)[0] == 5); // 5 is outside the last 2
    c.repeat_last_n = -1;                    // the whole history
    Sampler all(c);
    CHECK(draws(all, logits, 1, old)[0] == 6);
    // A negative logit is multiplied: it moves further down.
    std::vector<float> neg(4, -5.0f);
    neg[0] = -1.0f;
    neg[1] = -1.5f;
    CHECK(draws(s, neg, 1, {0})[0] == 1);
    c.repeat_penalty = 1.0f; // off
    Sampler off(c);
    CHECK(draws(off, logits, 1, recent)[0] == 5);
    // Ids outside the vocabulary in the history are ignored, not read.
    CHECK(draws(s, logits, 1, {-7, 1000})[0] == 5);
}

TEST_CASE("temperature + top-p reproduce llama2.c run.c's sampler draw for draw", "[sampler]") {
    for (float temperature : {0.0f, 0.5f, 1.0f, 1.7f}) {
        for (float top_p : {0.0f, 0.5f, 0.9f, 1.0f}) {
            for (unsigned long long seed : {1ull, 42ull, 1234567ull}) {
                SamplerConfig c;
                c.temperature = temperature;
                c.top_p = top_p;
                c.seed = seed;
                Sampler ours(c);
                RunCSampler ref{temperature, top_p, seed};
                for (int step = 0; step < 300; ++step) {
                    // Fresh logits per step, as in generation.
                    auto logits = random_logits(512, static_cast<uint32_t>(step * 31 + seed), 3.0f);
                    const int expected = ref.sample(logits);
                    const int32_t got = ours.sample(logits.data(), 512, nullptr, 0);
                    INFO("temperature " << temperature << " top_p " << top_p << " seed " << seed
                                        << " step " << step);
                    REQUIRE(got == expected);
                }
            }
        }
    }
}
