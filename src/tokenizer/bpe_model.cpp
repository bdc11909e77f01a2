#include "tokenizer/bpe_model.h"

#include <cstdio>

#include "common/error.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/pair_merge.h"
#include "tokenizer/utf8.h"

namespace llm {

using hf_json::Json;
using hf_json::Where;

namespace {
// Words up to this many symbols are merged by rescanning a small array;
// longer ones (runs of digits or punctuation) use a heap.
constexpr size_t kShortWord = 48;
constexpr uint32_t kNoRank = UINT32_MAX;
constexpr size_t kCacheWords = 1 << 16;
constexpr size_t kMaxCachedWordBytes = 64;

uint64_t pair_key(int32_t left, int32_t right) {
    return static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32 | static_cast<uint32_t>(right);
}
uint32_t string_hash(std::string_view s) { // FNV-1a: tokens are short
    uint32_t h = 2166136261u;
    for (char c : s)
        h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
    return h;
}
size_t pair_hash(uint64_t key) {
    return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> 20);
}

void optional_empty_string(const Json &model, const char *key, const Where &w) {
    const Json *v = hf_json::member(model, key);
    if (v && !hf_json::as_string(*v, w / key).empty())
        fail(LLM_ERR_UNSUPPORTED, (w / key).str(), ": a non-empty value is not supported");
}

// model.vocab / model.merges of the JSON tree as BpeLists.
void vocab_from_json(const Json &model, int64_t max_id, const Where &w, BpeLists &lists) {
    const Json &vocab = hf_json::as_object(hf_json::require(model, "vocab", w), w / "vocab");
    lists.vocab.reserve(vocab.size());
    for (auto it = vocab.begin(); it != vocab.end(); ++it)
        lists.add_token(it.key(), hf_json::as_int(it.value(), 0, max_id, w / "vocab" / it.key()));
    lists.has_vocab = true;
}

void merges_from_json(const Json &model, const Where &w, BpeLists &lists) {
    const Where mw = w / "merges";
    const Json &merges = hf_json::as_array(hf_json::require(model, "merges", w), mw);
    lists.merges.reserve(merges.size());
    for (size_t i = 0; i < merges.size(); ++i) {
        const Json &m = merges[i];
        if (m.is_string()) { // "left right"
            const std::string_view s = m.get_ref<const std::string &>();
            const size_t space = s.find(' ');
            if (space == std::string_view::npos || s.find(' ', space + 1) != std::string_view::npos)
                hf_json::bad(mw[i], "expected two tokens separated by one space");
            lists.add_merge(s.substr(0, space), s.substr(space + 1));
        } else if (m.is_array() && m.size() == 2) { // ["left", "right"]
            lists.add_merge(hf_json::as_string(m[0], mw[i][0]), hf_json::as_string(m[1], mw[i][1]));
        } else {
            hf_json::bad(mw[i], "expected \"left right\" or [\"left\", \"right\"]");
        }
    }
    lists.has_merges = true;
}
} // namespace

BpeModel::BpeModel(const Json &model, BpeLists &&lists, int64_t max_id, const Where &w) {
    std::fill(std::begin(byte_ids_), std::end(byte_ids_), -1);
    std::fill(std::begin(fallback_ids_), std::end(fallback_ids_), -1);

    if (!lists.has_vocab) vocab_from_json(model, max_id, w, lists);
    int64_t largest = -1;
    for (const BpeLists::Token &t : lists.vocab) {
        if (t.id > max_id)
            hf_json::bad(w / "vocab" / std::string(lists.text(t.begin, t.end)),
                         "integer out of range [0, " + std::to_string(max_id) + "]");
        largest = std::max(largest, t.id);
    }
    tokens_.resize(static_cast<size_t>(largest + 1));
    present_.assign(tokens_.size(), false);
    for (const BpeLists::Token &t : lists.vocab) {
        const size_t id = static_cast<size_t>(t.id);
        const std::string_view text = lists.text(t.begin, t.end);
        if (present_[id])
            hf_json::bad(w / "vocab", "id " + std::to_string(id) + " is given to both '" +
                                          tokens_[id] + "' and '" + std::string(text) + "'");
        tokens_[id].assign(text);
        present_[id] = true;
    }
    build_index(); // vocab keys are unique (a JSON object's): no repeats

    fuse_unk_ = hf_json::bool_or(model, "fuse_unk", false, w);
    byte_fallback_ = hf_json::bool_or(model, "byte_fallback", false, w);
    ignore_merges_ = hf_json::bool_or(model, "ignore_merges", false, w);
    if (const Json *unk = hf_json::member(model, "unk_token")) {
        const std::string &name = hf_json::as_string(*unk, w / "unk_token");
        unk_id_ = find(name);
        if (unk_id_ < 0) hf_json::bad(w / "unk_token", "'" + name + "' is not in the vocabulary");
    }
    if (const Json *dropout = hf_json::member(model, "dropout")) {
        if (!dropout->is_number()) hf_json::bad(w / "dropout", "expected a number");
        if (dropout->get<double>() != 0.0)
            fail(LLM_ERR_UNSUPPORTED, (w / "dropout").str(), ": BPE dropout is not supported");
    }
    optional_empty_string(model, "continuing_subword_prefix", w);
    optional_empty_string(model, "end_of_word_suffix", w);

    if (!lists.has_merges) merges_from_json(model, w, lists);
    const Where mw = w / "merges";
    if (lists.merges.size() >= kNoRank) hf_json::bad(mw, "too many merges");
    reserve_merges(lists.merges.size());
    for (size_t i = 0; i < lists.merges.size(); ++i) {
        const BpeLists::Merge &m = lists.merges[i];
        const std::string_view left = lists.text(m.begin, m.split),
                               right = lists.text(m.split, m.end),
                               joined = lists.text(m.begin, m.end);
        int32_t l = find(left), r = find(right), merged = find(joined);
        if (l < 0 || r < 0 || merged < 0)
            hf_json::bad(mw[i], "'" +
                                    std::string(l < 0   ? left
                                                : r < 0 ? right
                                                        : joined) +
                                    "' is not in the vocabulary");
        add_merge(l, r, static_cast<uint32_t>(i), merged);
    }
}

BpeModel::BpeModel(std::vector<std::string> tokens, const std::vector<std::string> &merges,
                   bool ignore_merges, const std::string &where)
    : tokens_(std::move(tokens)) {
    std::fill(std::begin(byte_ids_), std::end(byte_ids_), -1);
    std::fill(std::begin(fallback_ids_), std::end(fallback_ids_), -1);
    ignore_merges_ = ignore_merges;
    if (tokens_.size() >= static_cast<size_t>(INT32_MAX))
        fail(LLM_ERR_FORMAT, where, ": too many tokens");
    present_.assign(tokens_.size(), true);
    int32_t repeated = build_index();
    if (repeated >= 0)
        fail(LLM_ERR_FORMAT, where, ": token ", repeated, " '",
             tokens_[static_cast<size_t>(repeated)], "' repeats token ",
             find(tokens_[static_cast<size_t>(repeated)]));
    if (merges.size() >= kNoRank) fail(LLM_ERR_FORMAT, where, ": too many merges");
    reserve_merges(merges.size());
    for (size_t i = 0; i < merges.size(); ++i) {
        const std::string &m = merges[i];
        size_t space = m.size() > 1 ? m.find(' ', 1) : std::string::npos;
        if (space == std::string::npos)
            fail(LLM_ERR_FORMAT, where, ": merge ", i, " '", m, "' is not two tokens");
        std::string_view left(m.data(), space), right(m.data() + space + 1, m.size() - space - 1);
        int32_t l = find(left), r = find(right);
        int32_t merged = l < 0 || r < 0 ? -1 : find_joined(left, right);
        if (merged < 0)
            fail(LLM_ERR_FORMAT, where, ": merge ", i, " '", m, "': '",
                 l < 0   ? std::string(left)
                 : r < 0 ? std::string(right)
                         : std::string(left).append(right),
                 "' is not a token");
        if (!find_pair(l, r)) add_merge(l, r, static_cast<uint32_t>(i), merged); // first rank wins
    }
}

int32_t BpeModel::build_index() {
    int32_t repeated = -1;
    size_t slots = 16;
    while (slots < tokens_.size() * 2)
        slots *= 2;
    index_.assign(slots, {0, -1});
    for (size_t id = 0; id < tokens_.size(); ++id) {
        if (!present_[id]) continue;
        uint32_t h = string_hash(tokens_[id]);
        size_t i = h & (slots - 1);
        bool seen = false;
        for (; index_[i].id >= 0; i = (i + 1) & (slots - 1))
            if (index_[i].hash == h && tokens_[static_cast<size_t>(index_[i].id)] == tokens_[id])
                seen = true;
        if (seen) { // the first id keeps the string
            if (repeated < 0) repeated = static_cast<int32_t>(id);
            continue;
        }
        index_[i] = {h, static_cast<int32_t>(id)};
    }
    for (int b = 0; b < 256; ++b) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", b);
        fallback_ids_[b] = find(name);
    }
    return repeated;
}

void BpeModel::reserve_merges(size_t count) {
    size_t capacity = 16;
    while (capacity < count + count / 2)
        capacity *= 2;
    pairs_.assign(capacity, {kEmptyKey, 0, 0});
}

int32_t BpeModel::find(std::string_view token) const {
    const uint32_t h = string_hash(token);
    const size_t mask = index_.size() - 1;
    for (size_t i = h & mask; index_[i].id >= 0; i = (i + 1) & mask)
        if (index_[i].hash == h && tokens_[static_cast<size_t>(index_[i].id)] == token)
            return index_[i].id;
    return -1;
}

int32_t BpeModel::find_joined(std::string_view left, std::string_view right) const {
    uint32_t h = string_hash(left);
    for (char c : right)
        h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
    const size_t mask = index_.size() - 1;
    for (size_t i = h & mask; index_[i].id >= 0; i = (i + 1) & mask) {
        if (index_[i].hash != h) continue;
        const std::string &t = tokens_[static_cast<size_t>(index_[i].id)];
        if (t.size() == left.size() + right.size() && t.compare(0, left.size(), left) == 0 &&
            t.compare(left.size(), right.size(), right) == 0)
            return index_[i].id;
    }
    return -1;
}

void BpeModel::use_byte_level_alphabet() {
    byte_level_ = true;
    std::string ch;
    for (int b = 0; b < 256; ++b) {
        ch.clear();
        utf8_append(ch, byte_level_char(static_cast<uint8_t>(b)));
        byte_ids_[b] = find(ch);
    }
}

void BpeModel::add_merge(int32_t left, int32_t right, uint32_t rank, int32_t merged) {
    const uint64_t key = pair_key(left, right);
    const size_t mask = pairs_.size() - 1;
    for (size_t i = pair_hash(key) & mask;; i = (i + 1) & mask) {
        if (pairs_[i].key == kEmptyKey || pairs_[i].key == key) {
            pairs_[i] = {key, rank, merged}; // a repeated pair takes its last rank, as in HF
            return;
        }
    }
}

const BpeModel::PairEntry *BpeModel::find_pair(int32_t left, int32_t right) const {
    const uint64_t key = pair_key(left, right);
    const size_t mask = pairs_.size() - 1;
    for (size_t i = pair_hash(key) & mask;; i = (i + 1) & mask) {
        if (pairs_[i].key == key) return &pairs_[i];
        if (pairs_[i].key == kEmptyKey) return nullptr;
    }
}

// A character (or byte-level character) missing from the vocabulary: its
// <0xXX> byte tokens when byte_fallback has them all, else <unk> (runs fused
// when fuse_unk), else nothing. Same order of events as HF's merge_word.
void BpeModel::add_unknown(std::string_view piece, std::vector<int32_t> &symbols,
                           int32_t &pending_unk, bool &unk_pending) const {
    if (byte_fallback_) {
        bool all = true;
        for (char c : piece)
            all = all && fallback_ids_[static_cast<uint8_t>(c)] >= 0;
        if (all) {
            for (char c : piece)
                symbols.push_back(fallback_ids_[static_cast<uint8_t>(c)]);
            return;
        }
    }
    if (unk_id_ < 0) return;
    if (unk_pending && !fuse_unk_) symbols.push_back(pending_unk);
    pending_unk = unk_id_;
    unk_pending = true;
}

void BpeModel::initial_symbols(std::string_view word, std::vector<int32_t> &symbols) const {
    int32_t pending_unk = -1;
    bool unk_pending = false;
    auto known = [&](int32_t id) {
        if (unk_pending) symbols.push_back(pending_unk), unk_pending = false;
        symbols.push_back(id);
    };
    if (byte_level_) {
        std::string ch;
        for (char c : word) {
            int32_t id = byte_ids_[static_cast<uint8_t>(c)];
            if (id >= 0) {
                known(id);
            } else {
                ch.clear();
                utf8_append(ch, byte_level_char(static_cast<uint8_t>(c)));
                add_unknown(ch, symbols, pending_unk, unk_pending);
            }
        }
    } else {
        const char *p = word.data(), *end = p + word.size();
        while (p < end) {
            uint32_t len = utf8_decode(p, end).len;
            std::string_view ch(p, len);
            p += len;
            int32_t id = find(ch);
            if (id >= 0)
                known(id);
            else
                add_unknown(ch, symbols, pending_unk, unk_pending);
        }
    }
    if (unk_pending) symbols.push_back(pending_unk);
}

void BpeModel::tokenize(std::string_view word, std::vector<int32_t> &out, bool cache_locked) const {
    if (word.empty()) return;
    if (!cache_locked || word.size() > kMaxCachedWordBytes) {
        merge(word, out);
        return;
    }
    auto hit = cache_.find(word);
    if (hit != cache_.end()) {
        auto first = cache_ids_.begin() + hit->second.first;
        out.insert(out.end(), first, first + hit->second.second);
        return;
    }
    const size_t base = out.size();
    merge(word, out);
    if (cache_.size() < kCacheWords) {
        cache_words_.emplace_back(word);
        cache_.emplace(cache_words_.back(),
                       std::make_pair(static_cast<uint32_t>(cache_ids_.size()),
                                      static_cast<uint32_t>(out.size() - base)));
        cache_ids_.insert(cache_ids_.end(), out.begin() + static_cast<long>(base), out.end());
    }
}

void BpeModel::merge(std::string_view word, std::vector<int32_t> &out) const {
    if (ignore_merges_) { // a word that is a token is taken whole
        int32_t id = -1;
        if (byte_level_) {
            std::string mapped;
            for (char c : word)
                utf8_append(mapped, byte_level_char(static_cast<uint8_t>(c)));
            id = find(mapped);
        } else {
            id = find(word);
        }
        if (id >= 0) {
            out.push_back(id);
            return;
        }
    }
    const size_t base = out.size();
    initial_symbols(word, out);
    std::vector<int32_t> symbols;
    if (out.size() - base <= kShortWord) {
        int32_t *s = out.data() + base;
        size_t n = out.size() - base;
        // rank[i] / merged[i]: the merge of symbols i and i+1, if any.
        uint32_t rank[kShortWord];
        int32_t merged[kShortWord];
        auto look = [&](size_t i) {
            const PairEntry *e = find_pair(s[i], s[i + 1]);
            rank[i] = e ? e->rank : kNoRank;
            merged[i] = e ? e->merged : -1;
        };
        for (size_t i = 0; i + 1 < n; ++i)
            look(i);
        while (n > 1) {
            size_t best = 0;
            for (size_t i = 1; i + 1 < n; ++i)
                if (rank[i] < rank[best]) best = i;
            if (rank[best] == kNoRank) break;
            s[best] = merged[best];
            for (size_t i = best + 1; i + 1 < n; ++i) { // words are short: plain loops
                s[i] = s[i + 1];
                rank[i] = rank[i + 1];
                merged[i] = merged[i + 1];
            }
            --n;
            if (best > 0) look(best - 1);
            if (best + 1 < n) look(best);
        }
        out.resize(base + n);
        return;
    }
    // Long words (runs of digits or punctuation): the same order with a heap.
    symbols.assign(out.begin() + static_cast<long>(base), out.end());
    out.resize(base);
    merge_pairs<uint32_t>(symbols,
                          [&](int32_t left, int32_t right, uint32_t &rank, int32_t &merged) {
                              const PairEntry *e = find_pair(left, right);
                              if (!e) return false;
                              rank = e->rank;
                              merged = e->merged;
                              return true;
                          });
    out.insert(out.end(), symbols.begin(), symbols.end());
}

} // namespace llm
