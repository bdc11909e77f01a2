// GGUF "llama" vocabularies: SentencePiece pieces with scores, encoded as
// llama.cpp's SPM tokenizer does (llama-vocab.cpp): spaces written U+2581, a
// U+2581 before the text and after every special token when
// add_space_prefix (default on), then best-score merges with <0xXX> byte
// fallback. The merging is Llama2cTokenizer's (llama2.c's tokenizer.bin is
// the same model); SpmRules switches on llama.cpp's differences.
// Decoding drops the leading space of the piece right after BOS (as
// llama2.c and SentencePiece); llama.cpp's whole-text llama_detokenize
// instead drops it from the first token of the text, and not at all when
// the text starts with BOS.
// Where llama.cpp's symbols are not tokens: llama.cpp lets a character that
// is not a piece merge when the pair is one; here it is bytes at once (the
// same on SentencePiece vocabularies, where every character of a piece is a
// piece). A byte without a <0xXX> or one-byte piece becomes <unk> (llama.cpp
// throws).
#include "common/error.h"
#include "tokenizer/gguf_token_kinds.h"
#include "tokenizer/gguf_tokenizers.h"
#include "tokenizer/llama2c_tokenizer.h"

namespace llm {

namespace {
SpmPieceKind piece_kind(GgufTokenKind k) {
    switch (k) {
    case GgufTokenKind::Normal: return SpmPieceKind::Normal;
    case GgufTokenKind::Unknown: return SpmPieceKind::Unknown;
    case GgufTokenKind::Control: return SpmPieceKind::Control;
    case GgufTokenKind::UserDefined: return SpmPieceKind::UserDefined;
    case GgufTokenKind::Byte: return SpmPieceKind::Byte;
    case GgufTokenKind::Unused:
    case GgufTokenKind::Undefined: break;
    }
    return SpmPieceKind::Other;
}

// llama.cpp's defaults for SentencePiece vocabularies: <unk> <s> </s> at
// ids 0, 1, 2 unless the file says otherwise.
int32_t id_or_default(int32_t id, int32_t fallback, size_t n) {
    if (id >= 0) return id;
    return static_cast<size_t>(fallback) < n ? fallback : -1;
}
} // namespace

std::unique_ptr<Tokenizer> make_gguf_spm_tokenizer(const GgufVocab &v) {
    GgufTokenKinds kinds = gguf_token_kinds(v);
    const size_t n = v.tokens.size();
    SpmVocab s;
    s.pieces = v.tokens;
    for (size_t i = 0; i < n; ++i) // as llama.cpp reads an empty token
        if (s.pieces[i].empty()) s.pieces[i] = "[EMPTY_" + std::to_string(i) + "]";
    s.scores = v.scores;
    s.kinds.reserve(n);
    for (GgufTokenKind k : kinds.kind)
        s.kinds.push_back(piece_kind(k));
    s.matched = std::move(kinds.added);
    s.bos = id_or_default(v.bos, 1, n);
    s.eos = id_or_default(v.eos, 2, n);
    s.unk = id_or_default(v.unk, 0, n);
    s.add_bos = v.add_bos != 0; // default on
    s.add_eos = v.add_eos == 1;
    if (s.add_bos && s.bos < 0)
        fail(LLM_ERR_FORMAT,
             "GGUF tokenizer.ggml.add_bos_token is set but there is no bos_token_id");
    if (s.add_eos && s.eos < 0)
        fail(LLM_ERR_FORMAT,
             "GGUF tokenizer.ggml.add_eos_token is set but there is no eos_token_id");
    SpmRules rules;
    rules.space_marker = true;
    rules.add_space_prefix = v.add_space_prefix != 0; // default on
    rules.prefix_every_run = true;
    rules.lead_byte_lengths = true;
    return Llama2cTokenizer::from_pieces(std::move(s), rules);
}

} // namespace llm
