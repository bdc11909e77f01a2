#include "grammar/grammar_matcher.h"

#include <algorithm>

#include "common/error.h"

namespace llm::grammar {

GrammarMatcher::GrammarMatcher(std::shared_ptr<const Grammar> grammar)
    : grammar_(std::move(grammar)) {
    std::vector<Stack> todo;
    for (uint32_t a : grammar_->rules[grammar_->root].alts)
        todo.push_back(Stack{a});
    auto set = std::make_shared<StackSet>();
    expand(todo, *set);
    finish(*set);
    initial_.set = std::move(set);
    state_ = initial_;
}

void GrammarMatcher::reset() {
    state_ = initial_;
}

// Moves every stack of todo forward to a character set (or to empty: the
// end) and adds it to out.
void GrammarMatcher::expand(std::vector<Stack> &todo, StackSet &out) const {
    const std::vector<Elem> &elems = grammar_->elems;
    size_t work = 0;
    while (!todo.empty()) {
        Stack st = std::move(todo.back());
        todo.pop_back();
        if (++work > kMaxExpandWork)
            fail(LLM_ERR_GRAMMAR, "grammar too ambiguous: more than ", kMaxExpandWork,
                 " expansion steps for one character");
        if (st.empty()) {
            out.can_end = true;
            continue;
        }
        const uint32_t pos = st.back();
        const Elem &e = elems[pos];
        if (e.kind == ElemKind::Chars) {
            out.stacks.push_back(std::move(st));
            continue;
        }
        st.pop_back();
        if (e.kind == ElemKind::End) {
            todo.push_back(std::move(st));
            continue;
        }
        // A rule: continue after it (no entry when nothing follows, so right
        // recursion does not deepen the stack), then each alternative on top.
        if (elems[pos + 1].kind != ElemKind::End) st.push_back(pos + 1);
        if (st.size() >= kMaxStackDepth) continue;
        const auto &alts = grammar_->rules[e.a].alts;
        for (size_t k = alts.size(); k-- > 0;) {
            Stack n = st;
            n.push_back(alts[k]);
            todo.push_back(std::move(n));
        }
    }
}

void GrammarMatcher::finish(StackSet &out) const {
    std::sort(out.stacks.begin(), out.stacks.end());
    out.stacks.erase(std::unique(out.stacks.begin(), out.stacks.end()), out.stacks.end());
    if (out.stacks.size() > kMaxStacks)
        fail(LLM_ERR_GRAMMAR, "grammar too ambiguous: more than ", kMaxStacks,
             " parse stacks at once");
}

bool GrammarMatcher::any_accepts(const StackSet &set, uint32_t lo, uint32_t hi) const {
    for (const Stack &st : set.stacks) {
        const Elem &e = grammar_->elems[st.back()];
        const CodeRange *r = grammar_->ranges.data() + e.a, *end = r + e.b;
        r = std::lower_bound(r, end, lo, [](const CodeRange &x, uint32_t c) { return x.hi < c; });
        if (r != end && r->lo <= hi) return true;
    }
    return false;
}

std::shared_ptr<const StackSet> GrammarMatcher::advance_code_point(const StackSet &set,
                                                                   uint32_t cp) const {
    std::vector<Stack> todo;
    for (const Stack &st : set.stacks) {
        if (!grammar_->chars_contain(grammar_->elems[st.back()], cp)) continue;
        Stack n = st;
        n.back() += 1;
        todo.push_back(std::move(n));
    }
    if (todo.empty()) return nullptr;
    std::reverse(todo.begin(), todo.end());
    auto out = std::make_shared<StackSet>();
    expand(todo, *out);
    finish(*out);
    return out;
}

std::shared_ptr<const StackSet> GrammarMatcher::step(const std::shared_ptr<const StackSet> &set,
                                                     uint32_t cp, AdvanceCache *cache) const {
    if (!cache) return advance_code_point(*set, cp);
    const auto key = std::make_pair(set.get(), cp);
    auto hit = cache->next.find(key);
    if (hit != cache->next.end()) return hit->second;
    auto out = advance_code_point(*set, cp);
    if (out) out = intern(std::move(out), *cache);
    cache->next.emplace(key, out);
    return out;
}

std::shared_ptr<const StackSet> GrammarMatcher::intern(std::shared_ptr<const StackSet> set,
                                                       AdvanceCache &cache) const {
    std::string content(1, set->can_end ? '1' : '0');
    for (const Stack &st : set->stacks) {
        content.append(reinterpret_cast<const char *>(st.data()), st.size() * sizeof(uint32_t));
        content.append(4, '\xFF'); // no position is 0xFFFFFFFF
    }
    const size_t size = content.size();
    auto [it, fresh] = cache.interned.emplace(std::move(content), std::move(set));
    if (fresh) cache.interned_bytes += size + 64;
    return it->second;
}

MatchState GrammarMatcher::interned(const MatchState &s, AdvanceCache &cache) const {
    MatchState out = s;
    out.set = intern(s.set, cache);
    return out;
}

const ByteSet &GrammarMatcher::first_bytes(const std::shared_ptr<const StackSet> &set,
                                           AdvanceCache &cache) const {
    if (auto hit = cache.first.find(set.get()); hit != cache.first.end()) return hit->second;
    ByteSet out;
    // Code points of one UTF-8 length: [lo, hi] and the lead byte of each.
    struct Span {
        uint32_t lo, hi, shift, tag;
    };
    static const Span spans[] = {{0, 0x7F, 0, 0},
                                 {0x80, 0x7FF, 6, 0xC0},
                                 {0x800, 0xFFFF, 12, 0xE0},
                                 {0x10000, 0x10FFFF, 18, 0xF0}};
    for (const Stack &st : set->stacks) {
        const Elem &e = grammar_->elems[st.back()];
        for (uint32_t k = 0; k < e.b; ++k) {
            const CodeRange &r = grammar_->ranges[e.a + k];
            for (const Span &sp : spans) {
                const uint32_t lo = std::max(r.lo, sp.lo), hi = std::min(r.hi, sp.hi);
                if (lo > hi) continue;
                for (uint32_t b = sp.tag | (lo >> sp.shift); b <= (sp.tag | (hi >> sp.shift)); ++b)
                    out.add(static_cast<uint8_t>(b));
            }
        }
    }
    return cache.first.emplace(set.get(), out).first->second;
}

// Whether every non-ASCII scalar value leads from set to one same state
// (next); ascii gets the ASCII code points that lead there too. Code points
// between two consecutive range boundaries of the stacks' tops are accepted
// by the same stacks, so one of each such interval is enough.
// The code points where the stacks' tops' ranges begin and end (with the
// ASCII, surrogate and Unicode bounds): between two cuts every code point is
// accepted by the same stacks. False when there are too many.
bool GrammarMatcher::range_cuts(const StackSet &set, std::vector<uint32_t> &cuts) const {
    cuts = {0, 0x80, 0xD800, 0xE000, 0x110000};
    for (const Stack &st : set.stacks) {
        const Elem &e = grammar_->elems[st.back()];
        if (cuts.size() + 2 * size_t(e.b) > kMaxRunCuts) return false;
        for (uint32_t k = 0; k < e.b; ++k) {
            const CodeRange &r = grammar_->ranges[e.a + k];
            cuts.push_back(std::min<uint32_t>(r.lo, 0x110000));
            cuts.push_back(std::min<uint32_t>(r.hi, 0x10FFFF) + 1);
        }
    }
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    return true;
}

// Whether set refuses every non-ASCII scalar value and the ascii bits.
bool GrammarMatcher::refuses(const std::shared_ptr<const StackSet> &set, const uint64_t ascii[2],
                             AdvanceCache &cache) const {
    std::vector<uint32_t> cuts;
    if (!range_cuts(*set, cuts)) return false;
    for (size_t i = 0; i + 1 < cuts.size(); ++i) {
        const uint32_t cp = cuts[i];
        if (cp >= 0xD800 && cp < 0xE000) continue;
        bool asked = cp >= 0x80;
        for (uint32_t c = cp; c < cuts[i + 1] && c < 0x80 && !asked; ++c)
            asked = (ascii[c >> 6] >> (c & 63)) & 1;
        if (asked && step(set, cp, &cache)) return false;
    }
    return true;
}

// Whether every non-ASCII scalar value leads from set to one same state
// (next); ascii gets the ASCII code points that lead there too. Code points
// between two cuts are accepted by the same stacks, so one of each such
// interval is enough.
bool GrammarMatcher::uniform_step(const std::shared_ptr<const StackSet> &set, AdvanceCache &cache,
                                  uint64_t ascii[2], std::shared_ptr<const StackSet> &next) const {
    std::vector<uint32_t> cuts;
    if (!range_cuts(*set, cuts)) return false;
    next = nullptr;
    for (size_t i = 0; i + 1 < cuts.size(); ++i) {
        const uint32_t cp = cuts[i];
        if (cp < 0x80 || (cp >= 0xD800 && cp < 0xE000)) continue;
        auto r = step(set, cp, &cache);
        if (!r || (next && r != next)) return false;
        next = std::move(r);
    }
    if (!next) return false;
    ascii[0] = ascii[1] = 0;
    for (size_t i = 0; i + 1 < cuts.size() && cuts[i] < 0x80; ++i) {
        if (step(set, cuts[i], &cache) != next) continue;
        for (uint32_t c = cuts[i]; c < cuts[i + 1]; ++c)
            ascii[c >> 6] |= uint64_t(1) << (c & 63);
    }
    return true;
}

const RunInfo &GrammarMatcher::run(const std::shared_ptr<const StackSet> &set,
                                   AdvanceCache &cache) const {
    if (auto hit = cache.runs.find(set.get()); hit != cache.runs.end()) return hit->second;
    // Follow the uniform successors S0 -> S1 -> ... until a state already
    // known, a loop, a state without one, or the chain limit; then each
    // state's run is its own step followed by its successor's run.
    struct Link {
        std::shared_ptr<const StackSet> set;
        uint64_t ascii[2];
    };
    std::vector<Link> chain;
    RunInfo tail; // the run after the chain's last state
    std::shared_ptr<const StackSet> cur = set;
    for (;;) {
        Link link{cur, {0, 0}};
        std::shared_ptr<const StackSet> next;
        if (!uniform_step(cur, cache, link.ascii, next)) {
            if (!chain.empty()) tail.closed = refuses(cur, chain.back().ascii, cache);
            break;
        }
        chain.push_back(std::move(link));
        if (next == cur) {
            tail.length = kRunUnbounded;
            tail.ascii[0] = chain.back().ascii[0];
            tail.ascii[1] = chain.back().ascii[1];
            chain.back().set = nullptr; // its run is the tail itself
            break;
        }
        if (auto hit = cache.runs.find(next.get()); hit != cache.runs.end()) {
            tail = hit->second;
            break;
        }
        bool seen = chain.size() >= kMaxRunChain;
        for (const Link &l : chain)
            seen = seen || l.set == next;
        if (seen) break; // a longer cycle: counted no further
        cur = std::move(next);
    }
    RunInfo after = tail;
    const StackSet *loop = nullptr;
    for (size_t i = chain.size(); i-- > 0;) {
        RunInfo r;
        if (!chain[i].set) { // the self loop
            r = tail;
            loop = cur.get();
        } else {
            r.ascii[0] = chain[i].ascii[0];
            r.ascii[1] = chain[i].ascii[1];
            r.closed = after.closed;
            r.length = after.length == kRunUnbounded
                           ? kRunUnbounded
                           : static_cast<uint16_t>(std::min(after.length + 1, 0x7FFF));
            if (after.length != 0) {
                r.ascii[0] &= after.ascii[0];
                r.ascii[1] &= after.ascii[1];
            }
        }
        cache.runs[chain[i].set ? chain[i].set.get() : loop] = r;
        after = r;
    }
    return cache.runs.emplace(set.get(), RunInfo{}).first->second;
}

bool GrammarMatcher::advance(const MatchState &from, uint8_t b, MatchState &to,
                             AdvanceCache *cache) const {
    static const uint32_t min_cp[] = {0, 0, 0x80, 0x800, 0x10000};
    MatchState s;
    if (from.need == 0) {
        if (b < 0x80) {
            auto set = step(from.set, b, cache);
            if (!set) return false;
            to = MatchState{std::move(set), 0, 0, 0};
            return true;
        }
        if (b >= 0xC2 && b <= 0xDF)
            s = MatchState{from.set, b & 0x1Fu, 1, 2};
        else if (b >= 0xE0 && b <= 0xEF)
            s = MatchState{from.set, b & 0x0Fu, 2, 3};
        else if (b >= 0xF0 && b <= 0xF4)
            s = MatchState{from.set, b & 0x07u, 3, 4};
        else
            return false;
    } else {
        if ((b & 0xC0) != 0x80) return false;
        s = MatchState{from.set, from.partial << 6 | (b & 0x3Fu),
                       static_cast<uint8_t>(from.need - 1), from.len};
        if (s.need == 0) {
            const uint32_t cp = s.partial;
            if (cp < min_cp[s.len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
            auto set = step(from.set, cp, cache);
            if (!set) return false;
            to = MatchState{std::move(set), 0, 0, 0};
            return true;
        }
    }
    // Partial: the code points this prefix can still become.
    const unsigned shift = 6u * s.need;
    uint32_t lo = s.partial << shift, hi = lo | ((1u << shift) - 1);
    lo = std::max(lo, min_cp[s.len]);
    hi = std::min<uint32_t>(hi, 0x10FFFF);
    if (lo > hi || !any_accepts(*s.set, lo, hi)) return false;
    to = std::move(s);
    return true;
}

bool GrammarMatcher::accept_byte(uint8_t b) {
    MatchState next;
    if (!advance(state_, b, next)) return false;
    state_ = std::move(next);
    return true;
}

bool GrammarMatcher::accept_bytes(std::string_view bytes) {
    MatchState s = state_;
    for (char c : bytes) {
        MatchState next;
        if (!advance(s, static_cast<uint8_t>(c), next)) return false;
        s = std::move(next);
    }
    state_ = std::move(s);
    return true;
}

int64_t GrammarMatcher::forced_code_point(const MatchState &s) const {
    if (s.need != 0 || s.set->can_end || s.set->stacks.empty()) return -1;
    int64_t cp = -1;
    for (const Stack &st : s.set->stacks) {
        const Elem &e = grammar_->elems[st.back()];
        if (e.b != 1) return -1;
        const CodeRange &r = grammar_->ranges[e.a];
        if (r.lo != r.hi || (cp >= 0 && cp != r.lo)) return -1;
        cp = r.lo;
    }
    return cp;
}

} // namespace llm::grammar
