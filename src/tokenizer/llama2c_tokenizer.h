// SentencePiece-style pieces with scores, merged best score first: the
// tokenizer of llama2.c checkpoints (tokenizer.bin), encoded the way
// llama2.c's encode() does it, and of GGUF "llama" vocabularies, encoded the
// way llama.cpp's SPM tokenizer does it. Both repeatedly merge the adjacent
// pair whose concatenation is the best-scoring piece; SpmRules holds where
// the two differ.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>

#include "common/mapped_file.h"
#include "tokenizer/added_tokens.h"
#include "tokenizer/tokenizer.h"

namespace llm {

// What a piece is, for matching in text and decoding (GGUF's token types).
enum class SpmPieceKind : uint8_t { Other, Normal, Unknown, Control, UserDefined, Byte };

// Where llama.cpp's SPM encoding differs from llama2.c's.
struct SpmRules {
    // Pieces write spaces as U+2581 (SentencePiece's own form, kept in GGUF;
    // llama2.c's export turned them into plain spaces).
    bool space_marker = false;
    // The dummy prefix: a space before the text (llama2.c: once, at its very
    // start, even if a special token comes first) or before every run of
    // text at the start or right after a special token (llama.cpp).
    bool add_space_prefix = true;
    bool prefix_every_run = false;
    // Characters are cut by the length their first byte announces
    // (llama.cpp) rather than by the continuation bytes that follow
    // (llama2.c); the two differ only on invalid UTF-8.
    bool lead_byte_lengths = false;
};

// A vocabulary for Llama2cTokenizer::from_pieces (GGUF "llama").
struct SpmVocab {
    std::vector<std::string> pieces; // as stored, U+2581 for spaces
    std::vector<float> scores;       // empty: all 0
    std::vector<SpmPieceKind> kinds;
    std::vector<AddedToken> matched; // control/unknown/user-defined pieces found in text
    int32_t bos = -1, eos = -1, unk = -1;
    bool add_bos = true, add_eos = false;
};

class Llama2cTokenizer final : public Tokenizer {
  public:
    // Reads `vocab_size` entries from a tokenizer.bin image. Throws
    // TOKENIZER_MISMATCH if the file holds fewer, FORMAT if an entry is bad.
    static std::unique_ptr<Llama2cTokenizer> load(const MappedFile &file, int32_t vocab_size);
    // A GGUF "llama" vocabulary, encoded as llama.cpp does (the rules with
    // space_marker, prefix_every_run and lead_byte_lengths set). FORMAT for
    // a piece that repeats another.
    static std::unique_ptr<Llama2cTokenizer> from_pieces(SpmVocab vocab, const SpmRules &rules);

    int32_t vocab_size() const override { return static_cast<int32_t>(pieces_.size()); }
    std::vector<int32_t> encode(std::string_view text, bool add_special,
                                bool parse_special) const override;
    std::string piece(int32_t id) const override { return piece_out_[static_cast<size_t>(id)]; }
    void decode_append(DecodeState &state, int32_t id, bool render_special,
                       std::string &out) const override;
    bool is_special(int32_t id) const override {
        return id >= 0 && id < vocab_size() && hidden(id);
    }
    int32_t bos() const override { return bos_; }
    int32_t eos() const override { return eos_; }
    size_t max_piece_bytes() const override { return max_piece_bytes_; }
    int32_t find_special(std::string_view text) const override;

  private:
    Llama2cTokenizer() = default;
    // Fills the lookup tables once pieces_, kinds_ and the rules are set.
    void index_pieces();
    bool hidden(int32_t id) const {
        SpmPieceKind k = kinds_[static_cast<size_t>(id)];
        return k == SpmPieceKind::Control || k == SpmPieceKind::Unknown;
    }
    int32_t lookup(std::string_view s) const;
    void encode_plain(std::string_view text, std::vector<int32_t> &out) const;
    void merge(std::vector<int32_t> &ids) const;

    std::vector<std::string> pieces_; // as matched against text
    std::vector<float> scores_;
    std::vector<SpmPieceKind> kinds_;
    std::vector<std::string> shown_;     // decoded bytes of each piece
    std::vector<std::string> piece_out_; // what piece() returns
    // piece -> id (the first id of a repeated piece): open addressing over
    // (hash, id), pieces compared in pieces_ (262k-piece vocabularies).
    struct IndexSlot {
        uint32_t hash;
        int32_t id; // -1: empty
    };
    std::vector<IndexSlot> index_;
    std::unordered_map<std::string, int32_t> special_by_text_;
    AddedTokenMatcher matched_;
    int32_t byte_ids_[256];
    SpmRules rules_;
    int32_t bos_ = 1, eos_ = 2, space_id_ = -1;
    bool add_bos_ = true, add_eos_ = false;
    size_t max_piece_bytes_ = 0;
};

} // namespace llm
