// The allowed-token masks of one grammar over one vocabulary, made once per
// parse state: inside a JSON string or a number the state repeats token
// after token (and sentence after sentence), so its mask is computed on the
// first visit and then looked up. Keeps the grammar's interned states and
// steps between masks (the keys are interned stack sets, so one store serves
// one grammar and one trie). Bounded: the most recently used masks (64 for
// a sampler's own store, 256 for a shared one: 1.2 / 4.9 MB on Qwen's
// 151,936 tokens), and everything is dropped when the step memo grows past
// kMaxStepMemoBytes. Thread-safe: samplers on several threads may share one
// store (a miss is computed under the store's lock, so two samplers never
// walk the same new state twice).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "grammar/grammar_matcher.h"
#include "grammar/token_trie.h"

namespace llm::grammar {

// The tokens one state allows, as TokenTrie::mask_bits gives them. Never
// changed once made, so a sampler may keep using one the store evicted.
struct TokenMask {
    std::vector<uint64_t> bits;
    size_t count = 0;
};

class MaskStore {
  public:
    static constexpr size_t kMaxMasks = 64;        // a sampler's own
    static constexpr size_t kMaxSharedMasks = 256; // shared: the states of many sentences
    static constexpr size_t kMaxStepMemoBytes = size_t(32) << 20;

    // trie: the vocabulary the store is bound to (null: whichever the caller
    // passes, which must then always be the same one); at most max_masks.
    explicit MaskStore(std::shared_ptr<const TokenTrie> trie = nullptr,
                       size_t max_masks = kMaxMasks)
        : trie_(std::move(trie)), max_masks_(max_masks) {}

    bool serves(const TokenTrie &trie) const { return trie_.get() == &trie; }

    // The mask of state s of m's grammar over trie; hit: it was kept.
    std::shared_ptr<const TokenMask> mask(const TokenTrie &trie, const GrammarMatcher &m,
                                          const MatchState &s, bool &hit);
    void clear();
    // Roughly the heap bytes held (read without the lock).
    size_t memory() const { return memory_.load(std::memory_order_relaxed); }

  private:
    struct Entry {
        const StackSet *set = nullptr; // interned in steps_
        uint32_t partial = 0;
        uint8_t need = 0, len = 0;
        uint64_t used = 0;
        std::shared_ptr<const TokenMask> mask;
    };
    void clear_locked();
    void update_memory();

    const std::shared_ptr<const TokenTrie> trie_;
    const size_t max_masks_;
    std::mutex mutex_;
    AdvanceCache steps_;
    std::vector<Entry> entries_;
    uint64_t clock_ = 0;
    std::atomic<size_t> memory_{0};
};

} // namespace llm::grammar
