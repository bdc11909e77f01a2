// Logits -> next token. Greedy, temperature, top-k, top-p (nucleus), min-p
// and a repetition penalty, driven by a small deterministic RNG so the same
// seed gives the same text on every platform. With only temperature and
// top-p set it reproduces llama2.c's sampler draw for draw.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "grammar/grammar_matcher.h"
#include "grammar/mask_cache.h"
#include "grammar/token_trie.h"

namespace llm {

struct SamplerConfig {
    float temperature = 1.0f;
    float top_p = 0.9f;
    int32_t top_k = 0;
    float min_p = 0.0f;
    float repeat_penalty = 1.0f;
    int32_t repeat_last_n = 64;
    uint64_t seed = 0;
};

// xorshift64* as in llama2.c: tiny, fast and identical everywhere.
class Rng {
  public:
    explicit Rng(uint64_t seed) { reseed(seed); }
    void reseed(uint64_t seed) { state_ = seed ? seed : 0x9E3779B97F4A7C15ull; }
    uint32_t next_u32() {
        state_ ^= state_ >> 12;
        state_ ^= state_ << 25;
        state_ ^= state_ >> 27;
        return static_cast<uint32_t>((state_ * 0x2545F4914F6CDD1Dull) >> 32);
    }
    float next_f32() { return static_cast<float>(next_u32() >> 8) / 16777216.0f; } // [0, 1)

  private:
    uint64_t state_;
};

class Sampler {
  public:
    explicit Sampler(const SamplerConfig &config);
    void reseed(uint64_t seed) { rng_.reseed(seed); }
    const SamplerConfig &config() const { return config_; }

    // `history` is the context so far (for the repetition penalty). With a
    // grammar set, tokens it refuses are out of the draw and the chosen one
    // advances the grammar (LLM_ERR_GRAMMAR when no token can continue). A
    // second call at the same history length re-draws that position: the
    // grammar first goes back to before the previous pick (a token that
    // was never fed, e.g. after a cancelled step).
    int32_t sample(const float *logits, int32_t n_vocab, const int32_t *history, size_t n_history);

    // Constrains sampling to the grammar's sentences over the trie's tokens;
    // end-of-generation tokens only where the grammar can end, and only
    // those once nothing else can follow.
    void set_grammar(std::shared_ptr<const grammar::Grammar> g,
                     std::shared_ptr<const grammar::TokenTrie> trie);
    // The trie stays (a later set_grammar may reuse it).
    void clear_grammar() {
        matcher_.reset();
        masks_.clear();
    }
    bool has_grammar() const { return matcher_.has_value(); }
    const grammar::GrammarMatcher *matcher() const { return matcher_ ? &*matcher_ : nullptr; }
    const grammar::TokenTrie *trie() const { return trie_.get(); }
    std::shared_ptr<const grammar::TokenTrie> shared_trie() const { return trie_; }
    // Advances the grammar by a token picked elsewhere (no-op without one);
    // LLM_ERR_GRAMMAR if the grammar refuses it.
    void accept(int32_t token);
    const grammar::MaskCache &mask_cache() const { return masks_; }
    // Seconds spent on grammar masks and advances since the sampler began.
    double constraint_seconds() const { return constraint_seconds_; }
    // The same in CPU time of the sampling thread (0 where not measured):
    // steadier than the clock on a shared machine.
    double constraint_cpu_seconds() const { return constraint_cpu_seconds_; }

    struct Candidate {
        float p;
        int32_t id;
    };

  private:
    int32_t sample_logits(const float *logits, int32_t n, const int32_t *history, size_t n_history);

    // Puts the best m - sorted of candidates_[sorted ..) in order at
    // [sorted, m); [0, sorted) is already the best, in order.
    void sort_prefix(size_t sorted, size_t m);

    SamplerConfig config_;
    Rng rng_;
    std::vector<float> probs_;
    std::vector<Candidate> candidates_;

    std::shared_ptr<const grammar::TokenTrie> trie_;
    std::optional<grammar::GrammarMatcher> matcher_;
    size_t last_history_ = SIZE_MAX;  // n_history of the last grammar pick
    grammar::MatchState before_last_; // the grammar before that pick
    grammar::MaskCache masks_;
    std::vector<float> masked_;
    std::vector<int32_t> ids_, history_; // the allowed ids; the window among them
    double constraint_seconds_ = 0.0, constraint_cpu_seconds_ = 0.0;
    struct Stamp {
        std::chrono::steady_clock::time_point wall;
        double cpu = 0.0;
        static Stamp now();
    };
    void add_constraint_time(const Stamp &from, const Stamp &to);
};

// Index of the largest value (the first one on ties); some index in range
// when there are NaN.
int32_t argmax(const float *x, int32_t n);

} // namespace llm
