// The allowed-token masks of one grammar's states, kept while a sampler
// generates: inside a JSON string or a number the parse state repeats token
// after token, so its mask is computed once and then reused. Also keeps the
// grammar's interned states and steps between masks. Bounded: a few recent
// masks, and the step memo is dropped when it grows past a limit. One cache
// serves one grammar and one trie (clear() when either changes); not
// thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "grammar/grammar_matcher.h"
#include "grammar/token_trie.h"

namespace llm::grammar {

class MaskCache {
  public:
    static constexpr size_t kMaxMasks = 64;
    static constexpr size_t kMaxStepMemoBytes = size_t(32) << 20;

    // The bits of the tokens s allows (as TokenTrie::mask_bits) and their
    // count; valid until the next call.
    const std::vector<uint64_t> &mask(const TokenTrie &trie, const GrammarMatcher &m,
                                      const MatchState &s, size_t &count);
    void clear();

    size_t hits() const { return hits_; }
    size_t misses() const { return misses_; }

  private:
    struct Entry {
        const StackSet *set = nullptr; // interned in steps_
        uint32_t partial = 0;
        uint8_t need = 0, len = 0;
        uint64_t used = 0;
        size_t count = 0;
        std::vector<uint64_t> bits;
    };
    AdvanceCache steps_;
    std::vector<Entry> entries_;
    uint64_t clock_ = 0;
    size_t hits_ = 0, misses_ = 0;
};

} // namespace llm::grammar
