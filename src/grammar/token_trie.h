// Every token's text in one byte trie, so the tokens a grammar state allows
// are found by walking the trie with the matcher: a prefix the grammar
// refuses prunes every token below it, and the cost follows the number of
// live nodes rather than vocabulary size times token length.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "grammar/grammar_matcher.h"

namespace llm {
class Tokenizer;
}

namespace llm::grammar {

class TokenTrie {
  public:
    // bytes[id] is token id's text; empty = never allowed by the grammar.
    // eog: the end-of-generation ids (allowed only where the grammar can end).
    TokenTrie(const std::vector<std::string> &bytes, std::vector<int32_t> eog);

    // Token texts as they appear mid-stream; special tokens (other than
    // end-of-generation ones) and ids beyond the tokenizer get no text.
    static std::vector<std::string> token_bytes(const Tokenizer &tok, int32_t n_vocab,
                                                const std::vector<int32_t> &eog);

    int32_t n_vocab() const { return n_vocab_; }
    const std::vector<int32_t> &eog() const { return eog_; }
    bool is_eog(int32_t id) const;
    const std::string &bytes(int32_t id) const { return bytes_[static_cast<size_t>(id)]; }
    const std::vector<std::string> &all_bytes() const { return bytes_; }

    // allowed[id] = 1 for every token the state accepts (EOG where it can
    // end; only EOG when nothing else can follow). Returns how many.
    size_t mask(const GrammarMatcher &m, const MatchState &s, std::vector<uint8_t> &allowed) const;

  private:
    struct Node {
        uint32_t child_begin = 0, child_end = 0; // children are nodes[begin, end), by byte
        uint32_t token_begin = 0, token_end = 0; // ids ending here: tokens_[begin, end)
        uint8_t byte = 0;
    };
    uint32_t find_child(const Node &n, uint8_t b) const;

    int32_t n_vocab_;
    std::vector<std::string> bytes_;
    std::vector<int32_t> eog_;
    std::vector<Node> nodes_;
    std::vector<int32_t> tokens_;
};

} // namespace llm::grammar
