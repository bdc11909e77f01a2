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

// A run of text from a state (inside a JSON string, say): the next `length`
// code points keep the input alive whenever each is any non-ASCII scalar
// value or one of the `ascii` bits (each step leads every such code point to
// one same state). kRunUnbounded: the state loops on them. The token trie
// accepts whole subtrees of such text without walking them.
constexpr uint16_t kRunUnbounded = 0xFFFE;
constexpr size_t kMaxRunChain = 64; // states followed to find a run's length
constexpr size_t kMaxRunCuts = 512; // range boundaries looked at per state
struct RunInfo {
    uint64_t ascii[2] = {0, 0};
    uint16_t length = 0;
    bool closed = false; // after `length`, no such code point is accepted
};

// Bit b of words[b / 64]: a set of bytes.
struct ByteSet {
    uint64_t words[4] = {0, 0, 0, 0};
    bool has(uint8_t b) const { return (words[b >> 6] >> (b & 63)) & 1; }
    void add(uint8_t b) { words[b >> 6] |= uint64_t(1) << (b & 63); }
};

// Memo for walking many continuations of one state (a token trie mask), and
// between masks of one grammar: equal stack sets are shared (interned), and
// each (set, code point) is advanced once. Keys are interned sets, so one
// cache serves one grammar only.
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
    std::unordered_map<const StackSet *, RunInfo> runs;
    std::unordered_map<const StackSet *, ByteSet> first; // see first_bytes
    size_t interned_bytes = 0;

    // Roughly the heap bytes held.
    size_t memory() const {
        return 2 * interned_bytes + 64 * (next.size() + runs.size()) + 80 * first.size();
    }
    void clear() {
        next.clear();
        runs.clear();
        first.clear();
        interned.clear();
        interned_bytes = 0;
    }
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
    // s with its stack set replaced by the cache's equal one.
    MatchState interned(const MatchState &s, AdvanceCache &cache) const;
    // The bytes that can start the next code point from an interned set (a
    // superset: lead bytes of whole ranges; memoized in the cache).
    const ByteSet &first_bytes(const std::shared_ptr<const StackSet> &set,
                               AdvanceCache &cache) const;
    // The run from an interned set (memoized in the cache).
    const RunInfo &run(const std::shared_ptr<const StackSet> &set, AdvanceCache &cache) const;

  private:
    std::shared_ptr<const StackSet> advance_code_point(const StackSet &set, uint32_t cp) const;
    std::shared_ptr<const StackSet> step(const std::shared_ptr<const StackSet> &set, uint32_t cp,
                                         AdvanceCache *cache) const;
    std::shared_ptr<const StackSet> intern(std::shared_ptr<const StackSet> set,
                                           AdvanceCache &cache) const;
    bool range_cuts(const StackSet &set, std::vector<uint32_t> &cuts) const;
    bool refuses(const std::shared_ptr<const StackSet> &set, const uint64_t ascii[2],
                 AdvanceCache &cache) const;
    bool uniform_step(const std::shared_ptr<const StackSet> &set, AdvanceCache &cache,
                      uint64_t ascii[2], std::shared_ptr<const StackSet> &next) const;
    bool any_accepts(const StackSet &set, uint32_t lo, uint32_t hi) const;
    void expand(std::vector<Stack> &todo, StackSet &out) const;
    void finish(StackSet &out) const;

    std::shared_ptr<const Grammar> grammar_;
    MatchState initial_;
    MatchState state_;
};

} // namespace llm::grammar
