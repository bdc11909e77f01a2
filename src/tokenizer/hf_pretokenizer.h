// The "pre_tokenizer" of tokenizer.json: cuts normalized text into words
// that the model tokenizes one by one. Supported: Split (string or regex
// pattern; Isolated, Removed, MergedWithPrevious, MergedWithNext, Contiguous),
// ByteLevel (GPT-2 regex when use_regex, add_prefix_space; must come last),
// and Sequence of these. Other kinds are UNSUPPORTED.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/hf_json.h"
#include "tokenizer/pretokenizer_regex.h"

namespace llm {

class HfPreTokenizer {
  public:
    // config may be null (the whole text is one word).
    HfPreTokenizer(const hf_json::Json *config, const hf_json::Where &where);

    // Whether a ByteLevel step ends the chain: words are then raw bytes that
    // the model reads in GPT-2's byte-level alphabet.
    bool byte_level() const { return byte_level_; }

    // Appends the words of text; they view text or strings kept in storage.
    void split(std::string_view text, std::vector<std::string_view> &words,
               std::deque<std::string> &storage) const;

  private:
    enum class Behavior { Isolated, Removed, MergedWithPrevious, MergedWithNext, Contiguous };
    struct Step {
        std::shared_ptr<PretokenizerRegex> regex; // Split with a regex, or ByteLevel use_regex
        std::string literal;                      // Split with a string pattern
        Behavior behavior = Behavior::Isolated;
        bool add_prefix_space = false; // ByteLevel
    };
    void add(const hf_json::Json &config, const hf_json::Where &where, int depth);
    void apply(const Step &step, std::string_view piece, std::vector<std::string_view> &out,
               std::deque<std::string> &storage) const;

    std::vector<Step> steps_;
    bool byte_level_ = false;
};

} // namespace llm
