// GBNF (the grammar notation of llama.cpp) parsed into a compiled grammar:
// rules made of alternatives, each a sequence of elements that are either a
// set of code points or a reference to a rule. Repetitions ({m,n} * + ?) and
// groups become helper rules, so the matcher only knows those two elements.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace llm::grammar {

class MaskStore;

struct CodeRange {
    uint32_t lo, hi; // inclusive code points
};

enum class ElemKind : uint8_t { Chars, Rule, End };

// Chars: ranges[a, a + b) sorted and disjoint. Rule: rule id a. End: the end
// of an alternative.
struct Elem {
    ElemKind kind;
    uint32_t a;
    uint32_t b;
};

struct Grammar {
    struct Rule {
        std::string name;
        std::vector<uint32_t> alts; // positions in elems where alternatives start
    };
    std::vector<Elem> elems; // alternatives flattened, each closed by End
    std::vector<CodeRange> ranges;
    std::vector<Rule> rules;
    uint32_t root = 0;
    // Set by GrammarCache on the grammars it hands out: the masks of this
    // grammar over the vocabulary it was cached for, shared by every sampler
    // that uses it (MaskCache). Null: each sampler makes its own.
    std::shared_ptr<MaskStore> shared_masks;

    bool chars_contain(const Elem &e, uint32_t cp) const;
};

// Limits that keep a hostile grammar's cost bounded.
constexpr size_t kMaxGrammarBytes = 4u << 20;
constexpr size_t kMaxRules = 100000;
constexpr size_t kMaxElems = 2000000;
constexpr uint32_t kMaxRepetition = 10000;
constexpr int kMaxNesting = 100;

// Throws llm::Error(LLM_ERR_GRAMMAR, "line:col: ...") on a syntax error, an
// undefined rule, a missing root, an empty grammar, left recursion (also a
// repetition of something that can match nothing) or a limit exceeded.
std::shared_ptr<const Grammar> parse_gbnf(std::string_view text, std::string_view root = "root");

} // namespace llm::grammar
