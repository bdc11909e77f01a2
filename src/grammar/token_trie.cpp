#include "grammar/token_trie.h"

#include <algorithm>
#include <numeric>

#include "common/error.h"
#include "tokenizer/tokenizer.h"

namespace llm::grammar {

std::vector<std::string> TokenTrie::token_bytes(const Tokenizer &tok, int32_t n_vocab,
                                                const std::vector<int32_t> &eog) {
    std::vector<std::string> out(static_cast<size_t>(std::max(n_vocab, 0)));
    const int32_t known = std::min(n_vocab, tok.vocab_size());
    // Mid-stream form: after some ordinary token, with text already out (a
    // tokenizer that drops a space after BOS or at the start keeps it here).
    DecodeState mid;
    mid.emitted_text = true;
    for (int32_t id = 0; id < known; ++id)
        if (!tok.is_special(id) && id != tok.bos()) {
            mid.prev = id;
            break;
        }
    for (int32_t id = 0; id < known; ++id) {
        if (tok.is_special(id) || std::find(eog.begin(), eog.end(), id) != eog.end()) continue;
        DecodeState st = mid;
        tok.decode_append(st, id, false, out[static_cast<size_t>(id)]);
    }
    return out;
}

TokenTrie::TokenTrie(const std::vector<std::string> &bytes, std::vector<int32_t> eog)
    : n_vocab_(static_cast<int32_t>(bytes.size())), bytes_(bytes), eog_(std::move(eog)) {
    std::sort(eog_.begin(), eog_.end());
    eog_.erase(std::unique(eog_.begin(), eog_.end()), eog_.end());
    std::vector<int32_t> ids;
    for (int32_t id = 0; id < n_vocab_; ++id)
        if (!bytes_[static_cast<size_t>(id)].empty() && !is_eog(id)) ids.push_back(id);
    std::stable_sort(ids.begin(), ids.end(), [&](int32_t a, int32_t b) {
        return bytes_[static_cast<size_t>(a)] < bytes_[static_cast<size_t>(b)];
    });
    tokens_ = ids;
    // Breadth first: a node's children are laid out next to each other.
    struct Item {
        uint32_t node;
        size_t lo, hi, depth;
    };
    nodes_.emplace_back();
    std::vector<Item> queue{{0, 0, ids.size(), 0}};
    for (size_t q = 0; q < queue.size(); ++q) {
        const Item it = queue[q];
        size_t k = it.lo;
        auto len = [&](size_t i) { return bytes_[static_cast<size_t>(ids[i])].size(); };
        while (k < it.hi && len(k) == it.depth)
            ++k;
        nodes_[it.node].token_begin = static_cast<uint32_t>(it.lo);
        nodes_[it.node].token_end = static_cast<uint32_t>(k);
        nodes_[it.node].token_last = static_cast<uint32_t>(it.hi);
        nodes_[it.node].child_begin = static_cast<uint32_t>(nodes_.size());
        while (k < it.hi) {
            const uint8_t b = static_cast<uint8_t>(bytes_[static_cast<size_t>(ids[k])][it.depth]);
            size_t e = k;
            while (e < it.hi &&
                   static_cast<uint8_t>(bytes_[static_cast<size_t>(ids[e])][it.depth]) == b)
                ++e;
            Node child;
            child.byte = b;
            queue.push_back({static_cast<uint32_t>(nodes_.size()), k, e, it.depth + 1});
            nodes_.push_back(child);
            k = e;
        }
        nodes_[it.node].child_end = static_cast<uint32_t>(nodes_.size());
    }
    index_runs();
}

// Children come after their parent, so one backward pass sees a node's
// whole subtree done.
void TokenTrie::index_runs() {
    runs_.assign(nodes_.size(), Run{});
    std::vector<uint16_t> starts(nodes_.size(), 0); // code point starts, any bytes
    auto children_utf8 = [&](uint32_t node) {
        for (uint32_t c = nodes_[node].child_begin; c < nodes_[node].child_end; ++c)
            if (runs_[c].code_points == kNotUtf8) return false;
        return true;
    };
    // The continuation bytes after a lead byte: the first in [lo, hi], the
    // rest in [0x80, 0xBF], then well-formed text again (Unicode table 3-7).
    auto continuation = [&](auto &self, uint32_t node, int need, uint8_t lo, uint8_t hi) -> bool {
        for (uint32_t c = nodes_[node].child_begin; c < nodes_[node].child_end; ++c) {
            const uint8_t b = nodes_[c].byte;
            if (b < lo || b > hi) return false;
            if (need == 1 ? !children_utf8(c) : !self(self, c, need - 1, 0x80, 0xBF)) return false;
        }
        return true;
    };
    auto is_start = [](uint8_t b) { return b < 0x80 || b > 0xBF; };
    path_starts_.assign(nodes_.size(), 0);
    for (size_t i = 0; i < nodes_.size(); ++i)
        for (uint32_t c = nodes_[i].child_begin; c < nodes_[i].child_end; ++c)
            path_starts_[c] = static_cast<uint16_t>(
                std::min<int>(path_starts_[i] + is_start(nodes_[c].byte), kNotUtf8 - 2));
    token_starts_.assign(tokens_.size(), 0);
    for (size_t t = 0; t < tokens_.size(); ++t) {
        int k = 0;
        for (char ch : bytes_[static_cast<size_t>(tokens_[t])])
            k += is_start(static_cast<uint8_t>(ch));
        token_starts_[t] = static_cast<uint16_t>(std::min<int>(k, kNotUtf8 - 2));
    }
    for (size_t i = nodes_.size(); i-- > 1;) {
        const Node &n = nodes_[i];
        Run &r = runs_[i];
        uint16_t deepest = 0;
        for (uint32_t c = n.child_begin; c < n.child_end; ++c) {
            r.ascii[0] |= runs_[c].ascii[0];
            r.ascii[1] |= runs_[c].ascii[1];
            deepest = std::max(deepest, starts[c]);
        }
        const uint8_t b = n.byte;
        const bool cont = b >= 0x80 && b <= 0xBF;
        starts[i] = static_cast<uint16_t>(std::min(deepest + (cont ? 0 : 1), kNotUtf8 - 2));
        bool ok;
        if (b < 0x80) {
            r.ascii[b >> 6] |= uint64_t(1) << (b & 63);
            ok = children_utf8(static_cast<uint32_t>(i));
        } else if (b >= 0xC2 && b <= 0xDF) {
            ok = continuation(continuation, static_cast<uint32_t>(i), 1, 0x80, 0xBF);
        } else if (b >= 0xE0 && b <= 0xEF) {
            ok = continuation(continuation, static_cast<uint32_t>(i), 2, b == 0xE0 ? 0xA0 : 0x80,
                              b == 0xED ? 0x9F : 0xBF);
        } else if (b >= 0xF0 && b <= 0xF4) {
            ok = continuation(continuation, static_cast<uint32_t>(i), 3, b == 0xF0 ? 0x90 : 0x80,
                              b == 0xF4 ? 0x8F : 0xBF);
        } else {
            ok = false; // a continuation byte or one never in UTF-8
        }
        r.code_points = ok ? starts[i] : kNotUtf8;
    }
}

bool TokenTrie::is_eog(int32_t id) const {
    return std::binary_search(eog_.begin(), eog_.end(), id);
}

uint32_t TokenTrie::find_child(const Node &n, uint8_t b) const {
    auto first = nodes_.begin() + n.child_begin, last = nodes_.begin() + n.child_end;
    auto it = std::lower_bound(first, last, b, [](const Node &x, uint8_t v) { return x.byte < v; });
    return it != last && it->byte == b ? static_cast<uint32_t>(it - nodes_.begin()) : 0;
}

size_t TokenTrie::mask(const GrammarMatcher &m, const MatchState &s,
                       std::vector<uint8_t> &allowed) const {
    std::vector<uint64_t> bits;
    const size_t count = mask_bits(m, s, bits);
    allowed.assign(static_cast<size_t>(n_vocab_), 0);
    for (size_t id = 0; id < allowed.size(); ++id)
        allowed[id] = (bits[id >> 6] >> (id & 63)) & 1;
    return count;
}

size_t TokenTrie::mask_bits(const GrammarMatcher &m, const MatchState &s,
                            std::vector<uint64_t> &allowed, AdvanceCache *shared) const {
    AdvanceCache local;
    AdvanceCache &cache = shared ? *shared : local;
    allowed.assign((static_cast<size_t>(n_vocab_) + 63) / 64, 0);
    size_t count = 0;
    auto mark = [&](uint32_t begin, uint32_t end) {
        for (uint32_t t = begin; t < end; ++t) {
            const auto id = static_cast<uint32_t>(tokens_[t]);
            allowed[id >> 6] |= uint64_t(1) << (id & 63);
        }
        count += end - begin;
    };
    std::vector<std::pair<uint32_t, MatchState>> todo{{0, m.interned(s, cache)}};
    while (!todo.empty()) {
        uint32_t node = todo.back().first;
        MatchState st = std::move(todo.back().second); // (a lambda below uses it)
        todo.pop_back();
        // Fast path: one code point is the only way on; follow its bytes
        // without looking at the other children.
        const int64_t forced = m.forced_code_point(st);
        if (forced >= 0) {
            std::string enc;
            const auto cp = static_cast<uint32_t>(forced);
            if (cp < 0x80) {
                enc.push_back(static_cast<char>(cp));
            } else if (cp < 0x800) {
                enc = {static_cast<char>(0xC0 | (cp >> 6)), static_cast<char>(0x80 | (cp & 0x3F))};
            } else if (cp < 0x10000) {
                enc = {static_cast<char>(0xE0 | (cp >> 12)),
                       static_cast<char>(0x80 | ((cp >> 6) & 0x3F)),
                       static_cast<char>(0x80 | (cp & 0x3F))};
            } else {
                enc = {static_cast<char>(0xF0 | (cp >> 18)),
                       static_cast<char>(0x80 | ((cp >> 12) & 0x3F)),
                       static_cast<char>(0x80 | ((cp >> 6) & 0x3F)),
                       static_cast<char>(0x80 | (cp & 0x3F))};
            }
            bool alive = true;
            for (char c : enc) {
                const uint32_t child = find_child(nodes_[node], static_cast<uint8_t>(c));
                MatchState next;
                if (child == 0 || !m.advance(st, static_cast<uint8_t>(c), next, &cache)) {
                    alive = false;
                    break;
                }
                node = child;
                st = std::move(next);
                mark(nodes_[node].token_begin, nodes_[node].token_end);
            }
            if (alive) todo.emplace_back(node, std::move(st));
            continue;
        }
        // A child whose whole subtree is text the state's run accepts is
        // taken without walking it (inside a JSON string: nearly all).
        // Children whose byte cannot start a code point here are skipped
        // unasked; with few such bytes they are looked up instead.
        RunInfo run;
        const ByteSet *first = nullptr;
        if (st.need == 0) {
            run = m.run(st.set, cache);
            first = &m.first_bytes(st.set, cache);
        }
        auto visit = [&](uint32_t c) {
            const Run &r = runs_[c];
            if (run.length > 0 && r.code_points != kNotUtf8 && !(r.ascii[0] & ~run.ascii[0]) &&
                !(r.ascii[1] & ~run.ascii[1])) {
                if (r.code_points <= run.length) {
                    mark(nodes_[c].token_begin, nodes_[c].token_last);
                    return;
                }
                if (run.closed) { // those within the run's length, and no other
                    const int limit = path_starts_[node] + run.length;
                    for (uint32_t t = nodes_[c].token_begin; t < nodes_[c].token_last; ++t)
                        if (token_starts_[t] <= limit) mark(t, t + 1);
                    return;
                }
            }
            MatchState next;
            if (!m.advance(st, nodes_[c].byte, next, &cache)) return;
            mark(nodes_[c].token_begin, nodes_[c].token_end);
            if (nodes_[c].child_begin != nodes_[c].child_end) todo.emplace_back(c, std::move(next));
        };
        const Node &n = nodes_[node];
        int few = 0;
        if (first && n.child_end - n.child_begin > 16)
            for (uint64_t w : first->words)
                few += __builtin_popcountll(w);
        if (few > 0 && few <= 4) {
            for (int w = 0; w < 4; ++w)
                for (uint64_t bits = first->words[w]; bits; bits &= bits - 1) {
                    const auto b = static_cast<uint8_t>(64 * w + __builtin_ctzll(bits));
                    if (const uint32_t c = find_child(n, b)) visit(c);
                }
        } else {
            for (uint32_t c = n.child_begin; c < n.child_end; ++c)
                if (!first || first->has(nodes_[c].byte)) visit(c);
        }
    }
    if (m.can_end(s))
        for (int32_t id : eog_) {
            if (id < 0 || id >= n_vocab_) continue;
            uint64_t &w = allowed[static_cast<size_t>(id) >> 6];
            const uint64_t bit = uint64_t(1) << (id & 63);
            if (!(w & bit)) {
                w |= bit;
                ++count;
            }
        }
    return count;
}

} // namespace llm::grammar
