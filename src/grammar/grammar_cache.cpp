#include "grammar/grammar_cache.h"

#include <algorithm>

#include "grammar/json_schema_gbnf.h"
#include "grammar/mask_store.h"

namespace llm::grammar {

namespace {

uint64_t vocabulary_hash(const std::vector<std::string> &bytes, const std::vector<int32_t> &eog) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ bytes.size();
    auto mix = [&h](uint64_t v) { h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2); };
    for (const std::string &b : bytes)
        mix(std::hash<std::string_view>()(b));
    for (int32_t id : eog)
        mix(static_cast<uint32_t>(id));
    return h;
}

size_t grammar_bytes(const Grammar &g) {
    size_t n =
        sizeof(Grammar) + g.elems.size() * sizeof(Elem) + g.ranges.size() * sizeof(CodeRange);
    for (const Grammar::Rule &r : g.rules)
        n += sizeof(Grammar::Rule) + r.name.size() + r.alts.size() * sizeof(uint32_t);
    return n;
}

} // namespace

std::shared_ptr<const TokenTrie> GrammarCache::trie(const std::vector<std::string> &bytes,
                                                    const std::vector<int32_t> &eog,
                                                    const std::shared_ptr<const TokenTrie> &hint) {
    std::vector<int32_t> ids = eog; // as TokenTrie keeps them
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    const uint64_t hash = vocabulary_hash(bytes, ids);
    auto same = [&](const TokenTrie &t) { return t.eog() == ids && t.all_bytes() == bytes; };
    std::vector<std::shared_ptr<const TokenTrie>> candidates;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        for (const Vocabulary &v : vocabularies_)
            if (v.hash == hash) candidates.push_back(v.trie);
    }
    // Compared (and built) outside the lock: tries never change.
    std::shared_ptr<const TokenTrie> found;
    for (const auto &c : candidates)
        if (!found && same(*c)) found = c;
    if (!found && hint && same(*hint)) found = hint;
    if (!found) found = std::make_shared<TokenTrie>(bytes, eog);

    std::lock_guard<std::mutex> lock(mutex_);
    for (Vocabulary &v : vocabularies_)
        if (v.trie == found || (v.hash == hash && same(*v.trie))) { // (another thread's)
            v.used = ++clock_;
            return v.trie;
        }
    vocabularies_.push_back({hash, found, ++clock_});
    while (vocabularies_.size() > kMaxVocabularies) {
        auto old = std::min_element(
            vocabularies_.begin(), vocabularies_.end(),
            [](const Vocabulary &a, const Vocabulary &b) { return a.used < b.used; });
        grammars_.erase(std::remove_if(grammars_.begin(), grammars_.end(),
                                       [&](const Compiled &c) { return c.trie == old->trie; }),
                        grammars_.end());
        vocabularies_.erase(old);
    }
    return found;
}

std::shared_ptr<const Grammar> GrammarCache::gbnf(const std::shared_ptr<const TokenTrie> &trie,
                                                  std::string_view text, std::string_view root) {
    if (root.empty()) root = "root";
    std::string key = "gbnf\n";
    key.append(root).push_back('\0');
    key.append(text);
    return find_or_compile(trie, std::move(key), [&] { return parse_gbnf(text, root); });
}

std::shared_ptr<const Grammar>
GrammarCache::json_schema(const std::shared_ptr<const TokenTrie> &trie, std::string_view schema) {
    std::string key = "json\n";
    key.append(schema);
    return find_or_compile(trie, std::move(key), [&] {
        return parse_gbnf(json_schema_to_gbnf(std::string(schema)), "root");
    });
}

std::shared_ptr<const Grammar>
GrammarCache::find_or_compile(const std::shared_ptr<const TokenTrie> &trie, std::string key,
                              const std::function<std::shared_ptr<const Grammar>()> &compile) {
    auto lookup = [&]() -> std::shared_ptr<const Grammar> {
        for (Compiled &c : grammars_)
            if (c.trie == trie && c.key == key) {
                c.used = ++clock_;
                auto g = c.grammar; // (trimming moves the entries)
                trim_locked(g.get());
                return g;
            }
        return nullptr;
    };
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (auto g = lookup()) return g;
    }
    // Compiled outside the lock; errors are not kept (a bad grammar costs
    // its parse each time, as it would without the cache).
    auto own = std::make_shared<Grammar>(*compile());
    own->shared_masks = std::make_shared<MaskStore>(trie, MaskStore::kMaxSharedMasks);
    const size_t fixed = key.size() + grammar_bytes(*own);

    std::lock_guard<std::mutex> lock(mutex_);
    if (auto g = lookup()) return g; // another thread was first
    const bool known = std::any_of(vocabularies_.begin(), vocabularies_.end(),
                                   [&](const Vocabulary &v) { return v.trie == trie; });
    if (!known || fixed > kMaxBytes) return own; // shared by no one else, not kept
    grammars_.push_back({trie, std::move(key), own, fixed, ++clock_});
    trim_locked(own.get());
    return own;
}

size_t GrammarCache::bytes_locked() const {
    size_t n = 0;
    for (const Compiled &c : grammars_)
        n += c.fixed_bytes + c.grammar->shared_masks->memory();
    return n;
}

// Drops the least recently used grammars (never keep) until within bounds.
void GrammarCache::trim_locked(const Grammar *keep) {
    while (grammars_.size() > kMaxGrammars || bytes_locked() > kMaxBytes) {
        auto old = grammars_.end();
        for (auto it = grammars_.begin(); it != grammars_.end(); ++it)
            if (it->grammar.get() != keep && (old == grammars_.end() || it->used < old->used))
                old = it;
        if (old == grammars_.end()) return;
        grammars_.erase(old);
    }
}

size_t GrammarCache::vocabularies() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return vocabularies_.size();
}

size_t GrammarCache::grammars() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return grammars_.size();
}

size_t GrammarCache::bytes() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return bytes_locked();
}

void GrammarCache::clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    grammars_.clear();
    vocabularies_.clear();
}

} // namespace llm::grammar
