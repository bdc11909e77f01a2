// What the engine and the C API need from a tokenizer, whatever file it came
// from (llama2.c tokenizer.bin, Hugging Face tokenizer.json).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace llm {

// Per-stream decoding state: some tokenizers change a piece depending on
// what came before (llama2.c drops the space after BOS; HF's Strip decoder
// drops the first space of the text).
struct DecodeState {
    int32_t prev = -1;         // previous token id, -1 at the start
    bool emitted_text = false; // a non-special token has been decoded
};

class Tokenizer {
  public:
    virtual ~Tokenizer() = default;

    virtual int32_t vocab_size() const = 0;

    // add_special: BOS/EOS as this tokenizer's config says.
    // parse_special: special tokens written in the text become their ids.
    virtual std::vector<int32_t> encode(std::string_view text, bool add_special,
                                        bool parse_special) const = 0;

    // The raw bytes a token stands for, with no context rules applied.
    virtual std::string piece(int32_t id) const = 0;

    // Appends the bytes of `id` as they appear in decoded text, given the
    // state, and advances the state. Special tokens add nothing unless
    // render_special. Any id of the model's vocabulary may come in: one
    // beyond this tokenizer's own (an embedding padding row) adds nothing.
    virtual void decode_append(DecodeState &state, int32_t id, bool render_special,
                               std::string &out) const = 0;

    virtual bool is_special(int32_t id) const = 0;
    virtual int32_t bos() const = 0; // -1 if none
    virtual int32_t eos() const = 0; // -1 if none
    // Upper bound of decode_append's output for one token.
    virtual size_t max_piece_bytes() const = 0;
    // Added/special token text for id, or "" (used by chat templates).
    virtual int32_t find_special(std::string_view text) const {
        (void)text;
        return -1;
    }
};

} // namespace llm
