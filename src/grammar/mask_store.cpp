#include "grammar/mask_store.h"

namespace llm::grammar {

void MaskStore::clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    clear_locked();
}

void MaskStore::clear_locked() {
    entries_.clear();
    steps_.clear();
    update_memory();
}

void MaskStore::update_memory() {
    size_t bytes = steps_.memory();
    for (const Entry &e : entries_)
        bytes += sizeof(Entry) + sizeof(TokenMask) + e.mask->bits.size() * sizeof(uint64_t);
    memory_.store(bytes, std::memory_order_relaxed);
}

std::shared_ptr<const TokenMask> MaskStore::mask(const TokenTrie &trie, const GrammarMatcher &m,
                                                 const MatchState &s, bool &hit) {
    std::lock_guard<std::mutex> lock(mutex_);
    // Masks are keyed by interned sets: dropping the memo drops them too.
    if (steps_.memory() > kMaxStepMemoBytes) clear_locked();
    const MatchState key = m.interned(s, steps_);
    for (Entry &e : entries_)
        if (e.set == key.set.get() && e.partial == key.partial && e.need == key.need &&
            e.len == key.len) {
            e.used = ++clock_;
            hit = true;
            return e.mask;
        }
    hit = false;
    // Made whole before it is kept (mask_bits may throw).
    auto made = std::make_shared<TokenMask>();
    made->count = trie.mask_bits(m, key, made->bits, &steps_);
    Entry *slot;
    if (entries_.size() < max_masks_) {
        slot = &entries_.emplace_back();
    } else {
        slot = &entries_.front();
        for (Entry &e : entries_)
            if (e.used < slot->used) slot = &e;
    }
    slot->set = key.set.get();
    slot->partial = key.partial;
    slot->need = key.need;
    slot->len = key.len;
    slot->used = ++clock_;
    slot->mask = std::move(made);
    update_memory();
    return slot->mask;
}

} // namespace llm::grammar
