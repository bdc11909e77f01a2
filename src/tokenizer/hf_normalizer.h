// The "normalizer" of tokenizer.json: NFC, Prepend, Replace (string or
// regex pattern), and Sequence of these. Other kinds are UNSUPPORTED.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/hf_json.h"
#include "tokenizer/pretokenizer_regex.h"

namespace llm {

class HfNormalizer {
  public:
    // config may be null (no normalizer).
    HfNormalizer(const hf_json::Json *config, const hf_json::Where &where);

    bool identity() const { return steps_.empty(); }
    // The normalized text: a view of `text` itself or of `buffer`.
    std::string_view apply(std::string_view text, std::string &buffer) const;

  private:
    struct Step {
        enum Kind { Nfc, Prepend, Replace } kind;
        std::string text;                         // Prepend: prefix; Replace: the string pattern
        std::string replacement;                  // Replace
        std::shared_ptr<PretokenizerRegex> regex; // Replace with a Regex pattern
    };
    void add(const hf_json::Json &config, const hf_json::Where &where, int depth);

    std::vector<Step> steps_;
};

// The {"String": s} / {"Regex": r} pattern objects of Replace and Split:
// returns the string, or sets regex for a Regex pattern.
std::string hf_pattern(const hf_json::Json &pattern, const hf_json::Where &where,
                       std::shared_ptr<PretokenizerRegex> &regex);

} // namespace llm
