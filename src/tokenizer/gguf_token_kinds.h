// What each token of a GGUF vocabulary is (tokenizer.ggml.token_type), after
// the checks every GGUF tokenizer shares: array sizes, special ids in range.
// Token types follow llama.cpp's reading of them (llama-vocab.cpp), which is
// what GGUF files are written for.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "tokenizer/added_tokens.h"
#include "tokenizer/gguf_vocab.h"

namespace llm {

enum class GgufTokenKind : uint8_t {
    Undefined = 0, // a type value GGUF does not define: never matched nor decoded
    Normal = 1,
    Unknown = 2,
    Control = 3,
    UserDefined = 4,
    Unused = 5,
    Byte = 6,
};

struct GgufTokenKinds {
    std::vector<GgufTokenKind> kind; // per id
    // Control, unknown and user-defined tokens as the text matcher takes them:
    // control and unknown ones are "special" (matched only with
    // parse_special, as llama.cpp's tokenizer_st_partition does), user-defined
    // ones always.
    std::vector<AddedToken> added;
    std::unordered_map<std::string, int32_t> added_by_text;
};

// Checks the vocabulary (LLM_ERR_FORMAT: no tokens, scores or token_types
// of another length than tokens, a special id out of range) and classifies
// its tokens. Without token_types every token is normal. llama.cpp's fixes
// by token text apply: end-of-generation texts (<|endoftext|>, <|im_end|>,
// <|eot_id|>, </s>, ...) are control tokens whatever their type, gpt-oss's
// <|channel|> & co. user-defined, and its two exceptions (<|end|> beside
// <|return|>/<|call|>, </s> beside <|tool_response>). Its detection of FIM
// tokens by text is not applied.
GgufTokenKinds gguf_token_kinds(const GgufVocab &vocab);

// A special id (bos, eos, ...) of the vocabulary: -1, or in range.
void check_gguf_token_id(const GgufVocab &vocab, int32_t id, const char *key);

// Whether a token's type hides it in decoded text unless render_special
// (control and unknown tokens, as llama.cpp's token_to_piece).
inline bool gguf_hidden_kind(GgufTokenKind k) {
    return k == GgufTokenKind::Control || k == GgufTokenKind::Unknown;
}

} // namespace llm
