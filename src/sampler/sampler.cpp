#include "sampler/sampler.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <limits>
#include <unordered_set>

#include "common/error.h"
#include "kernels/kernels.h"

namespace llm {

namespace {
// The order of candidates: more probable first, then lower id.
bool before(const Sampler::Candidate &a, const Sampler::Candidate &b) {
    return a.p != b.p ? a.p > b.p : a.id < b.id;
}
} // namespace

int32_t argmax(const float *x, int32_t n) {
    // A vectorized max, then the first index holding it.
    const float m = max_f32(x, n);
    for (int32_t i = 0; i < n; ++i)
        if (x[i] == m) return i;
    int32_t best = 0; // NaN in the way: a plain scan
    for (int32_t i = 1; i < n; ++i)
        if (x[i] > x[best]) best = i;
    return best;
}

Sampler::Sampler(const SamplerConfig &config) : config_(config), rng_(config.seed) {}

void Sampler::set_grammar(std::shared_ptr<const grammar::Grammar> g,
                          std::shared_ptr<const grammar::TokenTrie> trie) {
    // The same grammar over the same tokens again (a new sentence) keeps
    // the masks already made.
    if (!matcher_ || &matcher_->grammar() != g.get() || trie != trie_) masks_.clear();
    matcher_.emplace(std::move(g));
    trie_ = std::move(trie);
    last_history_ = SIZE_MAX;
}

void Sampler::accept(int32_t token) {
    if (!matcher_) return;
    const grammar::TokenTrie &trie = *trie_;
    if (token < 0 || token >= trie.n_vocab())
        fail(LLM_ERR_GRAMMAR, "token ", token, " is outside the grammar's vocabulary");
    if (trie.is_eog(token)) {
        if (!matcher_->can_end())
            fail(LLM_ERR_GRAMMAR, "end-of-generation token ", token,
                 " where the grammar cannot end");
        return;
    }
    const std::string &bytes = trie.bytes(token);
    if (bytes.empty() || !matcher_->accept_bytes(bytes))
        fail(LLM_ERR_GRAMMAR, "token ", token, " does not continue the grammar");
}

Sampler::Stamp Sampler::Stamp::now() {
    Stamp s;
    s.wall = std::chrono::steady_clock::now();
#if defined(__unix__) || defined(__APPLE__)
    timespec t;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) == 0)
        s.cpu = static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
#endif
    return s;
}

void Sampler::add_constraint_time(const Stamp &from, const Stamp &to) {
    constraint_seconds_ += std::chrono::duration<double>(to.wall - from.wall).count();
    constraint_cpu_seconds_ += to.cpu - from.cpu;
}

int32_t Sampler::sample(const float *logits, int32_t n, const int32_t *history, size_t n_history) {
    if (!matcher_) return sample_logits(logits, n, history, n_history);
    const Stamp t0 = Stamp::now();
    if (n != trie_->n_vocab())
        fail(LLM_ERR_INVALID_ARGUMENT, "the grammar was set for a vocabulary of ", trie_->n_vocab(),
             " tokens, the logits have ", n);
    if (n_history == last_history_) matcher_->set_state(before_last_);
    size_t count = 0;
    const std::vector<uint64_t> &allowed = masks_.mask(*trie_, *matcher_, matcher_->state(), count);
    auto is_allowed = [&](int32_t id) {
        return (allowed[static_cast<size_t>(id) >> 6] >> (id & 63)) & 1;
    };
    if (count == 0)
        fail(LLM_ERR_GRAMMAR, "no token can continue the grammar here",
             matcher_->can_end() ? " (and the model has no end-of-generation token)" : "");
    int32_t token = -1;
    if (count == 1) {
        for (size_t w = 0; w < allowed.size() && token < 0; ++w)
            if (allowed[w]) token = static_cast<int32_t>(64 * w) + __builtin_ctzll(allowed[w]);
    } else if (count <= static_cast<size_t>(n) / 4) {
        // Few allowed: the draw runs over them alone, in id order (refused
        // ids would have had probability 0; a softmax over -inf also costs
        // more than the whole mask). The repetition window maps to them.
        ids_.clear();
        masked_.clear();
        for (size_t w = 0; w < allowed.size(); ++w)
            for (uint64_t b = allowed[w]; b; b &= b - 1) {
                const auto id = static_cast<int32_t>(64 * w) + __builtin_ctzll(b);
                ids_.push_back(id);
                masked_.push_back(logits[id]);
            }
        const SamplerConfig &c = config_;
        history_.clear();
        if (c.repeat_penalty != 1.0f && c.repeat_last_n != 0) {
            const size_t window = c.repeat_last_n < 0
                                      ? n_history
                                      : std::min(n_history, static_cast<size_t>(c.repeat_last_n));
            for (size_t i = n_history - window; i < n_history; ++i) {
                auto it = std::lower_bound(ids_.begin(), ids_.end(), history[i]);
                if (it != ids_.end() && *it == history[i])
                    history_.push_back(static_cast<int32_t>(it - ids_.begin()));
            }
        }
        const auto m = static_cast<int32_t>(ids_.size());
        add_constraint_time(t0, Stamp::now());
        const int32_t k = sample_logits(masked_.data(), m, history_.data(), history_.size());
        token = k >= 0 && k < m ? ids_[static_cast<size_t>(k)] : ids_[0];
    } else {
        // Many allowed: the logits, -inf where refused (whole words of
        // bits at once).
        masked_.assign(logits, logits + n);
        const float ninf = -std::numeric_limits<float>::infinity();
        float *out = masked_.data();
        for (int32_t base = 0; base < n; base += 64) {
            const uint64_t w = allowed[static_cast<size_t>(base) >> 6];
            if (w == ~uint64_t(0)) continue;
            const int32_t end = std::min(n, base + 64);
            if (w == 0) {
                std::fill(out + base, out + end, ninf);
                continue;
            }
            for (int32_t i = base; i < end; ++i)
                if (!((w >> (i - base)) & 1)) out[i] = ninf;
        }
        add_constraint_time(t0, Stamp::now());
        token = sample_logits(masked_.data(), n, history, n_history);
        if (token < 0 || token >= n || !is_allowed(token)) {
            // NaN logits or rounding: the best allowed token instead.
            token = -1;
            for (int32_t i = 0; i < n; ++i)
                if (is_allowed(i) && (token < 0 || masked_[static_cast<size_t>(i)] >
                                                       masked_[static_cast<size_t>(token)]))
                    token = i;
        }
    }
    const Stamp t2 = Stamp::now();
    grammar::MatchState before = matcher_->state();
    accept(token);
    before_last_ = std::move(before);
    last_history_ = n_history;
    add_constraint_time(count == 1 ? t0 : t2, Stamp::now());
    return token;
}

int32_t Sampler::sample_logits(const float *logits, int32_t n, const int32_t *history,
                               size_t n_history) {
    const SamplerConfig &c = config_;
    const bool penalty = c.repeat_penalty != 1.0f && c.repeat_last_n != 0 && n_history > 0;
    if (c.temperature <= 0.0f && !penalty) return argmax(logits, n);
    probs_.assign(logits, logits + n);
    float *p = probs_.data();

    // Repetition penalty (CTRL, Keskar et al. 2019): a token already in the
    // recent window has a positive logit divided, a negative one multiplied.
    if (penalty) {
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

    // Candidates in order of probability (ties: lower id first). For top-p,
    // tokens below (1 - top_p) / (n - 1) can never be in the nucleus, so they
    // are dropped first (llama2.c's trick). Only as much of the order as the
    // draw needs is established (the result is that of a full sort): top-k
    // keeps the k best in a heap as it scans; top-p sorts a growing prefix
    // until it holds the nucleus.
    candidates_.clear();
    const float cutoff = top_p_on ? (1.0f - c.top_p) / static_cast<float>(n - 1) : 0.0f;
    const float min_keep = min_p_on ? c.min_p * max_f32(p, n) : 0.0f;
    const float floor = std::max(cutoff, min_keep);
    const size_t k = top_k_on ? static_cast<size_t>(c.top_k) : 0;
    for (int32_t i = 0; i < n; ++i) {
        if (!(p[i] >= floor)) continue;
        const Candidate cand{p[i], i};
        if (!top_k_on || candidates_.size() < k) {
            candidates_.push_back(cand);
            if (top_k_on) std::push_heap(candidates_.begin(), candidates_.end(), before);
        } else if (before(cand, candidates_.front())) { // better than the worst kept
            std::pop_heap(candidates_.begin(), candidates_.end(), before);
            candidates_.back() = cand;
            std::push_heap(candidates_.begin(), candidates_.end(), before);
        }
    }
    if (candidates_.empty()) return argmax(p, n); // e.g. NaN logits
    if (top_k_on) std::sort_heap(candidates_.begin(), candidates_.end(), before);
    const size_t keep = candidates_.size();
    float total = 0.0f;
    size_t last = keep - 1;
    // [0, ordered) is in final order (under top-k, all of it already).
    size_t ordered = top_k_on ? keep : 0, i = 0;
    bool nucleus = false;
    for (size_t m = top_p_on && !top_k_on ? std::min<size_t>(keep, 64) : keep;;) {
        if (m > ordered) sort_prefix(ordered, m);
        ordered = std::max(ordered, m);
        for (; i < m && !nucleus; ++i) {
            total += candidates_[i].p;
            if (top_p_on && total > c.top_p) {
                last = i;
                nucleus = true;
            }
        }
        if (nucleus || m == keep) break;
        m = std::min(keep, 4 * m);
    }
    const float r = coin * total;
    float cdf = 0.0f;
    for (size_t i = 0; i <= last; ++i) {
        cdf += candidates_[i].p;
        if (r < cdf) return candidates_[i].id;
    }
    return candidates_[last].id;
}

void Sampler::sort_prefix(size_t sorted, size_t m) {
    const auto first = candidates_.begin() + static_cast<long>(sorted);
    const auto mid = candidates_.begin() + static_cast<long>(m);
    if (mid < candidates_.end()) std::nth_element(first, mid, candidates_.end(), before);
    std::sort(first, mid, before);
}

} // namespace llm
