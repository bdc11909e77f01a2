// The "decoder" of tokenizer.json, turned into what streaming needs: the
// bytes of each token on its own (ByteLevel, Replace, ByteFallback, Strip
// before Fuse), plus the one whole-text rule HF decoders have after Fuse
// (Strip of leading characters: drop the first space of the text).
// Supported: ByteLevel, Replace (string), ByteFallback, Fuse, Strip, Sequence.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/hf_json.h"

namespace llm {

class HfDecoder {
  public:
    // config may be null: HF then joins the tokens with spaces.
    HfDecoder(const hf_json::Json *config, const hf_json::Where &where);

    // The bytes token stands for, before any whole-text rule.
    std::string piece(std::string_view token) const;
    // Text to remove once from the very start of the decoded text, or "".
    const std::string &leading_strip() const { return leading_strip_; }
    bool join_with_spaces() const { return join_with_spaces_; }

  private:
    struct Step {
        enum Kind { ByteLevel, Replace, ByteFallback, Strip } kind;
        std::string from, to;       // Replace; Strip: from = the character
        size_t start = 0, stop = 0; // Strip
    };
    void add(const hf_json::Json &config, const hf_json::Where &where, int depth);

    std::vector<Step> steps_;
    bool fused_ = false;
    bool join_with_spaces_ = false;
    std::string leading_strip_;
};

} // namespace llm
