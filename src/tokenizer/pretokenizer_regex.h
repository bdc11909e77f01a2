// The regular expressions of tokenizer.json pre-tokenizers (Split, and the
// GPT-2 pattern behind ByteLevel's use_regex), with the semantics of the
// Oniguruma engine Hugging Face tokenizers uses: leftmost-first alternation,
// greedy backtracking, Unicode classes.
//
// Only the grammar these patterns use is supported; anything else is
// rejected with LLM_ERR_UNSUPPORTED naming the JSON field, never guessed:
//   alternation |, groups ( ) (?: ) (?i: ), lookahead (?= ) (?! ),
//   quantifiers ? * + {n} {n,} {n,m} and their lazy forms (?? *? +? ...),
//   classes [...] [^...] with ranges, . (any but \n),
//   \s \S \d \D \w \W \p{X} \P{X} \pX (X a general category: L Lu Ll Lt Lm
//   Lo M Mn Mc Me N Nd Nl No P Pc Pd Ps Pe Pi Pf Po S Sm Sc Sk So Z Zs Zl Zp
//   C Cc Cf Cs Co Cn), \r \n \t \f \v \0 \xHH \x{H...} \uHHHH and escaped
//   punctuation. (?i: ) folds literal characters and ranges with Unicode
//   simple case folding. Not supported: anchors, backreferences, lookbehind,
//   possessive quantifiers, inline flags other than (?i: ).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace llm {

class PretokenizerRegex {
  public:
    // `field` names the pattern's place in tokenizer.json for error messages.
    PretokenizerRegex(std::string_view pattern, const std::string &field);

    struct Frame { // a backtracking point
        int32_t pc;
        size_t pos;
        size_t min_pos; // back-off frames: the repeat may not shrink below this
        bool back_off;  // pop = give back one character of a greedy Repeat
    };

    // The matches of the pattern in a text, left to right, each starting
    // where the previous one ended or later. Empty matches are skipped:
    // tokenizer splits never keep them.
    class Matches {
      public:
        Matches(const PretokenizerRegex &re, std::string_view text) : re_(re), text_(text) {}
        bool next(size_t &start, size_t &end);

      private:
        const PretokenizerRegex &re_;
        std::string_view text_;
        size_t pos_ = 0;
        std::vector<Frame> stack_;
    };
    // All matches at once.
    void find_all(std::string_view text, std::vector<std::pair<size_t, size_t>> &matches) const;

    // Character classes, evaluated per code point.
    struct CharClass {
        uint64_t ascii[2] = {0, 0}; // final membership of U+0000..U+007F
        uint64_t by_props = 0;      // bit (category*2 + white_space): predicate holds
        std::vector<std::pair<uint32_t, uint32_t>> ranges; // explicit, sorted
        bool negated = false;
        bool contains(uint32_t cp) const;
    };
    enum class Op : uint8_t { Char, Class, Repeat, Split, Jump, Look, Match };
    struct Inst {
        Op op;
        bool flag = false; // Repeat: greedy; Look: negative; Split: unused
        uint32_t cp = 0;   // Char
        int32_t a = 0;     // Class/Repeat: class; Split: first; Jump: target; Look: sub-program
        int32_t b = 0;     // Split: second; Repeat: min
        int32_t c = 0;     // Repeat: max (-1 = unbounded)
    };

  private:
    long run(std::string_view text, int32_t pc, size_t pos, std::vector<Frame> &stack,
             uint64_t &budget) const;
    // ASCII characters a match starting at pc may begin with (all of them
    // when unknown or past the budget); lets Split skip alternatives that
    // cannot match.
    void first_chars(int32_t pc, int &budget, uint64_t set[2]) const;

    std::vector<CharClass> classes_;
    std::vector<Inst> code_;
    struct SplitFilter {
        uint64_t a[2], b[2];
    };
    std::vector<SplitFilter> split_filter_; // per instruction (used by Split)
    std::string field_;
    friend class RegexCompiler;
};

} // namespace llm
