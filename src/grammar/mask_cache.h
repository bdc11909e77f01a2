// A sampler's access to the allowed-token masks of its grammar (see
// MaskStore): the store shared by every sampler of the grammar when the
// grammar came from a GrammarCache for this trie, else a store of its own.
// One cache serves one grammar and one trie (clear() when either changes);
// one cache is used by one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "grammar/grammar_matcher.h"
#include "grammar/mask_store.h"
#include "grammar/token_trie.h"

namespace llm::grammar {

class MaskCache {
  public:
    static constexpr size_t kMaxMasks = MaskStore::kMaxMasks;
    static constexpr size_t kMaxStepMemoBytes = MaskStore::kMaxStepMemoBytes;

    // The bits of the tokens s allows (as TokenTrie::mask_bits) and their
    // count; valid until the next call.
    const std::vector<uint64_t> &mask(const TokenTrie &trie, const GrammarMatcher &m,
                                      const MatchState &s, size_t &count);
    void clear();

    // This sampler's lookups (in a shared store, another sampler's first
    // visit is a hit here).
    size_t hits() const { return hits_; }
    size_t misses() const { return misses_; }

  private:
    std::shared_ptr<MaskStore> own_;
    std::shared_ptr<const TokenMask> last_;
    size_t hits_ = 0, misses_ = 0;
};

} // namespace llm::grammar
