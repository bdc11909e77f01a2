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
    allowed.assign(static_cast<size_t>(n_vocab_), 0);
    size_t count = 0;
    auto mark = [&](const Node &n) {
        for (uint32_t t = n.token_begin; t < n.token_end; ++t) {
            allowed[static_cast<size_t>(tokens_[t])] = 1;
            ++count;
        }
    };
    AdvanceCache cache;
    std::vector<std::pair<uint32_t, MatchState>> todo{{0, s}};
    while (!todo.empty()) {
        auto [node, st] = std::move(todo.back());
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
                mark(nodes_[node]);
            }
            if (alive) todo.emplace_back(node, std::move(st));
            continue;
        }
        const Node &n = nodes_[node];
        for (uint32_t c = n.child_begin; c < n.child_end; ++c) {
            MatchState next;
            if (!m.advance(st, nodes_[c].byte, next, &cache)) continue;
            mark(nodes_[c]);
            if (nodes_[c].child_begin != nodes_[c].child_end) todo.emplace_back(c, std::move(next));
        }
    }
    if (m.can_end(s))
        for (int32_t id : eog_)
            if (id >= 0 && id < n_vocab_ && !allowed[static_cast<size_t>(id)]) {
                allowed[static_cast<size_t>(id)] = 1;
                ++count;
            }
    return count;
}

} // namespace llm::grammar
