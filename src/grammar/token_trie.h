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
    // The same as bits: token id is bit id % 64 of allowed[id / 64]. cache:
    // the grammar's states and steps, kept between calls (null: a fresh one).
    size_t mask_bits(const GrammarMatcher &m, const MatchState &s, std::vector<uint64_t> &allowed,
                     AdvanceCache *cache = nullptr) const;
    size_t node_count() const { return nodes_.size(); }

  private:
    struct Node {
        uint32_t child_begin = 0, child_end = 0; // children are nodes[begin, end), by byte
        uint32_t token_begin = 0, token_end = 0; // ids ending here: tokens_[begin, end)
        uint32_t token_last = 0;                 // the subtree's ids: tokens_[begin, last)
        uint8_t byte = 0;
    };
    // What the texts of a node's subtree are from the node's byte on (its
    // run), to accept the subtree whole where a state's RunInfo covers it:
    // which ASCII bytes occur, and how many code points the longest has
    // (kNotUtf8 when some text is not well-formed UTF-8 from that byte).
    static constexpr uint16_t kNotUtf8 = 0xFFFF;
    struct Run {
        uint64_t ascii[2] = {0, 0};
        uint16_t code_points = 0;
    };
    void index_runs();
    uint32_t find_child(const Node &n, uint8_t b) const;

    int32_t n_vocab_;
    std::vector<std::string> bytes_;
    std::vector<int32_t> eog_;
    std::vector<Node> nodes_;
    std::vector<Run> runs_;              // per node
    std::vector<uint16_t> path_starts_;  // per node: code points begun on its path
    std::vector<uint16_t> token_starts_; // per tokens_ entry: code points begun
    std::vector<int32_t> tokens_;
};

} // namespace llm::grammar
