// Added tokens of tokenizer.json ("added_tokens"): strings matched in the
// text before normalization and BPE, leftmost-longest, each becoming its id.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace llm {

struct AddedToken {
    int32_t id = -1;
    std::string content;
    bool special = false;
    bool lstrip = false;     // the match swallows white space on its left
    bool rstrip = false;     // ... and on its right
    bool normalized = false; // matched in normalized text (else in the raw text)
};

class AddedTokenMatcher {
  public:
    AddedTokenMatcher() = default;
    explicit AddedTokenMatcher(std::vector<AddedToken> tokens);

    bool empty() const { return tokens_.empty(); }

    // A piece of text: plain text (id -1) or one added token.
    struct Segment {
        std::string_view text;
        int32_t id;
    };
    // Cuts text into plain segments and added tokens. Special tokens are
    // matched only when with_special; other added tokens always (as in HF).
    void split(std::string_view text, bool with_special, std::vector<Segment> &out) const;

  private:
    // The longest eligible token at text[pos...], or -1.
    int longest_at(std::string_view text, size_t pos, bool with_special) const;

    std::vector<AddedToken> tokens_;
    std::vector<int> by_first_byte_[256]; // indices into tokens_, longest first
};

} // namespace llm
