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

    // Receives the words, in order, as they are cut (no word list is built:
    // a long text streams through).
    class WordSink {
      public:
        virtual void word(std::string_view w) = 0;

      protected:
        ~WordSink() = default;
    };
    // The words view text or strings kept in storage.
    void for_each_word(std::string_view text, std::deque<std::string> &storage,
                       WordSink &sink) const;

  private:
    enum class Behavior { Isolated, Removed, MergedWithPrevious, MergedWithNext, Contiguous };
    struct Step {
        std::shared_ptr<PretokenizerRegex> regex; // Split with a regex, or ByteLevel use_regex
        std::string literal;                      // Split with a string pattern
        Behavior behavior = Behavior::Isolated;
        bool add_prefix_space = false; // ByteLevel
    };
    void add(const hf_json::Json &config, const hf_json::Where &where, int depth);
    void add_step(Step step, const hf_json::Where &where);
    void apply(size_t step, std::string_view piece, std::deque<std::string> &storage,
               WordSink &sink) const;

    std::vector<Step> steps_;
    bool byte_level_ = false;
};

} // namespace llm
