// The tokenizer of llama2.c checkpoints (tokenizer.bin): SentencePiece-style
// pieces with scores, encoded the way llama2.c's encode() does it.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>

#include "common/mapped_file.h"
#include "tokenizer/tokenizer.h"

namespace llm {

class Llama2cTokenizer final : public Tokenizer {
  public:
    // Reads `vocab_size` entries from a tokenizer.bin image. Throws
    // TOKENIZER_MISMATCH if the file holds fewer, FORMAT if an entry is bad.
    static std::unique_ptr<Llama2cTokenizer> load(const MappedFile &file, int32_t vocab_size);

    int32_t vocab_size() const override { return static_cast<int32_t>(pieces_.size()); }
    std::vector<int32_t> encode(std::string_view text, bool add_special,
                                bool parse_special) const override;
    std::string piece(int32_t id) const override { return pieces_[id]; }
    void decode_append(DecodeState &state, int32_t id, bool render_special,
                       std::string &out) const override;
    bool is_special(int32_t id) const override { return id >= 0 && id <= 2; }
    int32_t bos() const override { return 1; }
    int32_t eos() const override { return 2; }
    size_t max_piece_bytes() const override { return max_piece_bytes_; }
    int32_t find_special(std::string_view text) const override;

  private:
    int32_t lookup(std::string_view s) const;
    int32_t find_special_prefix(std::string_view text) const;
    void encode_plain(std::string_view text, std::vector<int32_t> &out) const;
    void merge(std::vector<int32_t> &ids) const;

    std::vector<std::string> pieces_;
    std::vector<float> scores_;
    std::unordered_map<std::string_view, int32_t> index_; // views into pieces_
    size_t max_piece_bytes_ = 0;
};

} // namespace llm
