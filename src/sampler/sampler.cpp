#include "sampler/sampler.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "kernels/kernels.h"

namespace llm {

int32_t argmax(const float *x, int32_t n) {
    int32_t best = 0;
    for (int32_t i = 1; i < n; ++i)
        if (x[i] > x[best]) best = i;
    return best;
}

Sampler::Sampler(const SamplerConfig &config) : config_(config), rng_(config.seed) {}

int32_t Sampler::sample(const float *logits, int32_t n, const int32_t *history, size_t n_history) {
    const SamplerConfig &c = config_;
    probs_.assign(logits, logits + n);
    float *p = probs_.data();

    // Repetition penalty (CTRL, Keskar et al. 2019): a token already in the
    // recent window has a positive logit divided, a negative one multiplied.
    if (c.repeat_penalty != 1.0f && c.repeat_last_n != 0 && n_history > 0) {
        size_t window = c.repeat_last_n < 0
                            ? n_history
                            : std::min(n_history, static_cast<size_t>(c.repeat_last_n));
        std::unordered_set<int32_t> seen(history + (n_history - window), history + n_history);
        for (int32_t id : seen) {
            if (id < 0 || id >= n) continue;
            p[id] = p[id] > 0.0f ? p[id] / c.repeat_penalty : p[id] * c.repeat_penalty;
        }
    }

    if (c.temperature <= 0.0f) return argmax(p, n);
    for (int32_t i = 0; i < n; ++i)
        p[i] /= c.temperature;
    softmax(p, n);
    const float coin = rng_.next_f32();

    const bool top_p_on = c.top_p > 0.0f && c.top_p < 1.0f;
    const bool top_k_on = c.top_k > 0 && c.top_k < n;
    const bool min_p_on = c.min_p > 0.0f;
    if (!top_p_on && !top_k_on && !min_p_on) {
        // Plain multinomial over the ids in order (llama2.c's sample_mult).
        float cdf = 0.0f;
        for (int32_t i = 0; i < n; ++i) {
            cdf += p[i];
            if (coin < cdf) return i;
        }
        return n - 1; // rounding
    }

    // Candidates sorted by probability (ties: lower id first). For top-p,
    // tokens below (1 - top_p) / (n - 1) can never be in the nucleus, so they
    // are dropped before sorting (llama2.c's trick: it keeps the sort small).
    candidates_.clear();
    const float cutoff = top_p_on ? (1.0f - c.top_p) / static_cast<float>(n - 1) : 0.0f;
    float p_max = 0.0f;
    for (int32_t i = 0; i < n; ++i)
        p_max = std::max(p_max, p[i]);
    const float min_keep = min_p_on ? c.min_p * p_max : 0.0f;
    for (int32_t i = 0; i < n; ++i)
        if (p[i] >= cutoff && p[i] >= min_keep) candidates_.push_back({p[i], i});
    auto before = [](const Candidate &a, const Candidate &b) {
        return a.p != b.p ? a.p > b.p : a.id < b.id;
    };
    if (candidates_.empty()) return argmax(p, n); // e.g. NaN logits
    size_t keep = candidates_.size();
    if (top_k_on && static_cast<size_t>(c.top_k) < keep) {
        keep = static_cast<size_t>(c.top_k);
        std::partial_sort(candidates_.begin(), candidates_.begin() + static_cast<long>(keep),
                          candidates_.end(), before);
    } else {
        std::sort(candidates_.begin(), candidates_.end(), before);
    }
    float total = 0.0f;
    size_t last = keep - 1;
    for (size_t i = 0; i < keep; ++i) {
        total += candidates_[i].p;
        if (top_p_on && total > c.top_p) {
            last = i;
            break;
        }
    }
    const float r = coin * total;
    float cdf = 0.0f;
    for (size_t i = 0; i <= last; ++i) {
        cdf += candidates_[i].p;
        if (r < cdf) return candidates_[i].id;
    }
    return candidates_[last].id;
}

} // namespace llm
