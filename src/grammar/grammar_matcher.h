// Where a parse of a compiled grammar can be: a set of stacks (a pushdown
// automaton run on every alternative at once). Each stack holds positions in
// Grammar::elems: its top is the character set to match next, the entries
// below it are where to continue when the rule above is done. Input comes as
// bytes; code points are assembled from UTF-8 and a partial one is already
// checked against what the stacks could accept, so a wrong byte is refused
// as early as possible.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "grammar/gbnf_parser.h"

namespace llm::grammar {

using Stack = std::vector<uint32_t>;

// Limits on one state, so an ambiguous or deeply nested input costs bounded
// memory and time. More stacks or work than this is an LLM_ERR_GRAMMAR error;
// a stack deeper than kMaxStackDepth is dropped (nesting that deep is not
// accepted).
constexpr size_t kMaxStacks = 4096;
constexpr size_t kMaxStackDepth = 2048;
constexpr size_t kMaxExpandWork = 1u << 18;

struct StackSet {
    std::vector<Stack> stacks; // sorted, distinct, none empty
    bool can_end = false;      // an empty stack: the input is a complete sentence
};

struct MatchState {
    std::shared_ptr<const StackSet> set;
    uint32_t partial = 0; // bits of the code point being assembled
    uint8_t need = 0;     // continuation bytes still expected
    uint8_t len = 0;      // length of that UTF-8 sequence
};

// Memo for walking many continuations of one state (a token trie mask):
// equal stack sets are shared, and each (set, code point) is advanced once.
struct AdvanceCache {
    struct KeyHash {
        size_t operator()(const std::pair<const StackSet *, uint32_t> &k) const {
            return std::hash<const void *>()(k.first) * 31 + k.second;
        }
    };
    std::unordered_map<std::string, std::shared_ptr<const StackSet>> interned;
    std::unordered_map<std::pair<const StackSet *, uint32_t>, std::shared_ptr<const StackSet>,
                       KeyHash>
        next; // null: refused
};

class GrammarMatcher {
  public:
    explicit GrammarMatcher(std::shared_ptr<const Grammar> grammar);

    void reset();
    // False (and the state unchanged) when the byte cannot continue the input.
    bool accept_byte(uint8_t b);
    // All bytes or none.
    bool accept_bytes(std::string_view bytes);
    // The input so far is a complete sentence of the grammar.
    bool can_end() const { return can_end(state_); }
    bool is_accepting() const { return can_end(); }
    // Some byte could follow (false: only the end remains, or nothing).
    bool can_continue() const { return can_continue(state_); }

    const MatchState &state() const { return state_; }
    void set_state(MatchState s) { state_ = std::move(s); }
    const Grammar &grammar() const { return *grammar_; }

    // The functional core, for walking many continuations of one state.
    bool advance(const MatchState &from, uint8_t b, MatchState &to,
                 AdvanceCache *cache = nullptr) const;
    bool can_end(const MatchState &s) const { return s.need == 0 && s.set->can_end; }
    bool can_continue(const MatchState &s) const { return !s.set->stacks.empty(); }
    // The single code point every stack requires next, if there is one and
    // the input cannot end here; else -1.
    int64_t forced_code_point(const MatchState &s) const;

  private:
    std::shared_ptr<const StackSet> advance_code_point(const StackSet &set, uint32_t cp) const;
    std::shared_ptr<const StackSet> step(const std::shared_ptr<const StackSet> &set, uint32_t cp,
                                         AdvanceCache *cache) const;
    bool any_accepts(const StackSet &set, uint32_t lo, uint32_t hi) const;
    void expand(std::vector<Stack> &todo, StackSet &out) const;
    void finish(StackSet &out) const;

    std::shared_ptr<const Grammar> grammar_;
    MatchState initial_;
    MatchState state_;
};

} // namespace llm::grammar
