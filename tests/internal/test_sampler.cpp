// The sampler's partial selections (argmax, top-k heap, growing top-p
// prefix) against a naive reference that sorts every candidate: the same
// seed must draw the same tokens.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "kernels/kernels.h"
#include "sampler/sampler.h"

using namespace llm;

namespace {

int32_t reference_sample(const SamplerConfig &c, Rng &rng, std::vector<float> p) {
    const int32_t n = static_cast<int32_t>(p.size());
    if (c.temperature <= 0.0f)
        return static_cast<int32_t>(std::max_element(p.begin(), p.end()) - p.begin());
    for (float &v : p)
        v /= c.temperature;
    softmax(p.data(), n);
    const float coin = rng.next_f32();
    const bool top_p_on = c.top_p > 0.0f && c.top_p < 1.0f;
    const bool top_k_on = c.top_k > 0 && c.top_k < n;
    const bool min_p_on = c.min_p > 0.0f;
    if (!top_p_on && !top_k_on && !min_p_on) {
        float cdf = 0.0f;
        for (int32_t i = 0; i < n; ++i) {
            cdf += p[i];
            if (coin < cdf) return i;
        }
        return n - 1;
    }
    const float cutoff = top_p_on ? (1.0f - c.top_p) / static_cast<float>(n - 1) : 0.0f;
    const float min_keep = min_p_on ? c.min_p * *std::max_element(p.begin(), p.end()) : 0.0f;
    std::vector<std::pair<float, int32_t>> cand;
    for (int32_t i = 0; i < n; ++i)
        if (p[i] >= cutoff && p[i] >= min_keep) cand.push_back({p[i], i});
    std::sort(cand.begin(), cand.end(), [](auto &a, auto &b) {
        return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    const size_t keep =
        top_k_on ? std::min(cand.size(), static_cast<size_t>(c.top_k)) : cand.size();
    float total = 0.0f;
    size_t last = keep - 1;
    for (size_t i = 0; i < keep; ++i) {
        total += cand[i].first;
        if (top_p_on && total > c.top_p) {
            last = i;
            break;
        }
    }
    const float r = coin * total;
    float cdf = 0.0f;
    for (size_t i = 0; i <= last; ++i) {
        cdf += cand[i].first;
        if (r < cdf) return cand[i].second;
    }
    return cand[last].second;
}

std::vector<float> logits(int32_t n, float spread, uint32_t seed, bool ties) {
    std::mt19937 gen(seed);
    std::normal_distribution<float> d(0.0f, spread);
    std::vector<float> v(static_cast<size_t>(n));
    for (float &x : v)
        x = ties ? std::round(d(gen)) : d(gen); // rounded: many equal values
    return v;
}

} // namespace

TEST_CASE("sampler draws what a full sort would", "[sampler]") {
    struct Case {
        float temperature, top_p;
        int32_t top_k;
        float min_p;
    };
    const Case cases[] = {{0.0f, 1.0f, 0, 0.0f},   {1.0f, 1.0f, 0, 0.0f},  {0.8f, 0.9f, 0, 0.0f},
                          {1.0f, 0.5f, 0, 0.0f},   {0.7f, 1.0f, 40, 0.0f}, {1.0f, 0.95f, 40, 0.0f},
                          {1.2f, 0.9f, 200, 0.0f}, {1.0f, 1.0f, 1, 0.0f},  {1.0f, 1.0f, 0, 0.05f},
                          {1.0f, 0.9f, 50, 0.1f},  {2.0f, 0.99f, 0, 0.0f}};
    for (int32_t n : {512, 151936})
        for (float spread : {0.5f, 8.0f})
            for (bool ties : {false, true})
                for (const Case &k : cases) {
                    SamplerConfig c;
                    c.temperature = k.temperature;
                    c.top_p = k.top_p;
                    c.top_k = k.top_k;
                    c.min_p = k.min_p;
                    c.seed = 7;
                    Sampler s(c);
                    Rng rng(7);
                    auto l = logits(n, spread, static_cast<uint32_t>(n) + (ties ? 1 : 0), ties);
                    INFO("n " << n << " spread " << spread << " ties " << ties << " T "
                              << k.temperature << " top_p " << k.top_p << " top_k " << k.top_k
                              << " min_p " << k.min_p);
                    for (int draw = 0; draw < 4; ++draw)
                        REQUIRE(s.sample(l.data(), n, nullptr, 0) == reference_sample(c, rng, l));
                }
}

TEST_CASE("argmax takes the first of equal maxima", "[sampler]") {
    std::vector<float> v(1000, -1.0f);
    v[700] = 5.0f;
    v[123] = 5.0f;
    CHECK(argmax(v.data(), 1000) == 123);
    v.assign(37, 0.0f);
    CHECK(argmax(v.data(), 37) == 0);
    v[36] = 1e-30f;
    CHECK(argmax(v.data(), 37) == 36);
}
