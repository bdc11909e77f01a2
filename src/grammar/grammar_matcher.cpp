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
    if (out) {
        std::string content(1, out->can_end ? '1' : '0');
        for (const Stack &st : out->stacks) {
            content.append(reinterpret_cast<const char *>(st.data()), st.size() * sizeof(uint32_t));
            content.append(4, '\xFF'); // no position is 0xFFFFFFFF
        }
        out = cache->interned.emplace(std::move(content), out).first->second;
    }
    cache->next.emplace(key, out);
    return out;
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
