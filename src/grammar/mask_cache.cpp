#include "grammar/mask_cache.h"

namespace llm::grammar {

void MaskCache::clear() {
    own_.reset();
    last_.reset();
}

const std::vector<uint64_t> &MaskCache::mask(const TokenTrie &trie, const GrammarMatcher &m,
                                             const MatchState &s, size_t &count) {
    MaskStore *store = m.grammar().shared_masks.get();
    if (!store || !store->serves(trie)) {
        if (!own_) own_ = std::make_shared<MaskStore>();
        store = own_.get();
    }
    bool hit = false;
    last_ = store->mask(trie, m, s, hit);
    ++(hit ? hits_ : misses_);
    count = last_->count;
    return last_->bits;
}

} // namespace llm::grammar
