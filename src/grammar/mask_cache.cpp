#include "grammar/mask_cache.h"

namespace llm::grammar {

void MaskCache::clear() {
    entries_.clear();
    steps_.clear();
}

const std::vector<uint64_t> &MaskCache::mask(const TokenTrie &trie, const GrammarMatcher &m,
                                             const MatchState &s, size_t &count) {
    // Masks are keyed by interned sets: dropping the memo drops them too.
    if (steps_.memory() > kMaxStepMemoBytes) clear();
    const MatchState key = m.interned(s, steps_);
    for (Entry &e : entries_)
        if (e.set == key.set.get() && e.partial == key.partial && e.need == key.need &&
            e.len == key.len) {
            e.used = ++clock_;
            count = e.count;
            ++hits_;
            return e.bits;
        }
    ++misses_;
    Entry *slot;
    if (entries_.size() < kMaxMasks) {
        slot = &entries_.emplace_back();
    } else {
        slot = &entries_.front();
        for (Entry &e : entries_)
            if (e.used < slot->used) slot = &e;
    }
    slot->set = nullptr; // no match while its mask is made (it may throw)
    slot->count = trie.mask_bits(m, key, slot->bits, &steps_);
    slot->set = key.set.get();
    slot->partial = key.partial;
    slot->need = key.need;
    slot->len = key.len;
    slot->used = ++clock_;
    count = slot->count;
    return slot->bits;
}

} // namespace llm::grammar
