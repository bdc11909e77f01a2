// GGUF "gpt2" vocabularies: byte-level BPE as llama.cpp's llm_tokenizer_bpe
// runs it, built from the pieces the tokenizer.json path uses (BpeModel,
// HfPreTokenizer, AddedTokenMatcher), so both paths give the same ids for
// the same vocabulary.
//   - encode: control/unknown tokens written in the text are matched only
//     with parse_special, user-defined ones always; the text between them is
//     cut by the label's regexes (gguf_pretokenizer.h) and merged by rank.
//     add_special puts BOS in front when add_bos (default: false, true for
//     the Llama 3 labels) and EOS after when add_eos.
//   - decode: normal tokens back through GPT-2's byte alphabet; control and
//     unknown tokens only with render_special, user-defined ones always,
//     both as their text; byte tokens <0xXX> as their byte; unused and
//     undefined ones as nothing (llama.cpp's token_to_piece).
// Known differences from llama.cpp: bytes that are not UTF-8 stay bytes (as
// in the tokenizer.json path; llama.cpp reads each as U+FFFD); added tokens
// are matched leftmost-longest (llama.cpp: longest token first over the
// whole text; the two differ only for overlapping added tokens); of
// llama.cpp's fixes of token attributes, those by model name (phi-3
// rstrip, jina/modern-bert lstrip) and its detection of FIM tokens by text
// are not applied (gguf_token_kinds.h has the ones that are).
#include <algorithm>
#include <deque>

#include "common/error.h"
#include "tokenizer/added_tokens.h"
#include "tokenizer/bpe_model.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/gguf_pretokenizer.h"
#include "tokenizer/gguf_token_kinds.h"
#include "tokenizer/gguf_tokenizers.h"
#include "tokenizer/hf_pretokenizer.h"

namespace llm {

namespace {

// "<0xAB>" -> 0xAB, else -1.
int byte_token_value(const std::string &t) {
    if (t.size() != 6 || t.compare(0, 3, "<0x") != 0 || t[5] != '>') return -1;
    auto hex = [](char c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        return -1;
    };
    int hi = hex(t[3]), lo = hex(t[4]);
    return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

// llama.cpp reads an empty token as "[EMPTY_<id>]".
std::vector<std::string> token_texts(const GgufVocab &v) {
    std::vector<std::string> tokens = v.tokens;
    for (size_t i = 0; i < tokens.size(); ++i)
        if (tokens[i].empty()) tokens[i] = "[EMPTY_" + std::to_string(i) + "]";
    return tokens;
}

// The label's regexes as the tokenizer.json pre-tokenizer they amount to:
// Split (Isolated) for each, then ByteLevel without its own regex.
HfPreTokenizer make_pre_tokenizer(const GgufPreTokenizer &pre, const std::string &label) {
    hf_json::Json steps = hf_json::Json::array();
    for (const std::string &re : pre.regexes)
        steps.push_back({{"type", "Split"},
                         {"pattern", {{"Regex", re}}},
                         {"behavior", "Isolated"},
                         {"invert", false}});
    steps.push_back({{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}});
    const hf_json::Json config = {{"type", "Sequence"}, {"pretokenizers", steps}};
    return HfPreTokenizer(&config, hf_json::Where{"GGUF tokenizer.ggml.pre '" + label + "'", ""});
}

class GgufBpeTokenizer final : public Tokenizer {
  public:
    GgufBpeTokenizer(const GgufVocab &v, const GgufPreTokenizer &pre, GgufTokenKinds kinds);

    int32_t vocab_size() const override { return static_cast<int32_t>(kind_.size()); }
    std::vector<int32_t> encode(std::string_view text, bool add_special,
                                bool parse_special) const override;
    std::string piece(int32_t id) const override {
        return valid(id) ? pieces_[static_cast<size_t>(id)] : std::string();
    }
    void decode_append(DecodeState &state, int32_t id, bool render_special,
                       std::string &out) const override;
    bool is_special(int32_t id) const override {
        return valid(id) && gguf_hidden_kind(kind_[static_cast<size_t>(id)]);
    }
    int32_t bos() const override { return bos_; }
    int32_t eos() const override { return eos_; }
    size_t max_piece_bytes() const override { return max_piece_bytes_; }
    int32_t find_special(std::string_view text) const override {
        auto it = added_by_text_.find(std::string(text));
        return it == added_by_text_.end() ? -1 : it->second;
    }

  private:
    bool valid(int32_t id) const { return id >= 0 && id < vocab_size(); }

    BpeModel model_;
    HfPreTokenizer pre_tokenizer_;
    AddedTokenMatcher added_;
    std::unordered_map<std::string, int32_t> added_by_text_;
    std::vector<GgufTokenKind> kind_;
    std::vector<std::string> pieces_; // decoded bytes (specials: their text)
    int32_t bos_ = -1, eos_ = -1;
    bool add_bos_ = false, add_eos_ = false;
    size_t max_piece_bytes_ = 0;
};

GgufBpeTokenizer::GgufBpeTokenizer(const GgufVocab &v, const GgufPreTokenizer &pre,
                                   GgufTokenKinds kinds)
    : model_(token_texts(v), v.merges, pre.ignore_merges, "GGUF tokenizer.ggml"),
      pre_tokenizer_(make_pre_tokenizer(pre, v.pre)), added_(std::move(kinds.added)),
      added_by_text_(std::move(kinds.added_by_text)), kind_(std::move(kinds.kind)), bos_(v.bos),
      eos_(v.eos) {
    model_.use_byte_level_alphabet();
    int missing = model_.missing_byte();
    if (missing >= 0)
        fail(LLM_ERR_FORMAT, "GGUF tokenizer.ggml.tokens: byte ", missing,
             " has no token of its own, which byte-level BPE needs");
    add_bos_ = v.add_bos < 0 ? pre.add_bos : v.add_bos != 0;
    add_eos_ = v.add_eos == 1;
    if (add_bos_ && bos_ < 0)
        fail(LLM_ERR_FORMAT,
             "GGUF tokenizer.ggml.add_bos_token is set but there is no bos_token_id");
    if (add_eos_ && eos_ < 0)
        fail(LLM_ERR_FORMAT,
             "GGUF tokenizer.ggml.add_eos_token is set but there is no eos_token_id");

    pieces_.resize(kind_.size());
    for (size_t id = 0; id < kind_.size(); ++id) {
        const std::string &text = model_.token(static_cast<int32_t>(id));
        std::string &p = pieces_[id];
        switch (kind_[id]) {
        case GgufTokenKind::Normal:
            // A character outside the alphabet keeps the token's own bytes (as
            // HF's ByteLevel decoder; llama.cpp writes a marker instead).
            if (!byte_level_decode(text, p)) p = text;
            break;
        case GgufTokenKind::Control:
        case GgufTokenKind::Unknown:
        case GgufTokenKind::UserDefined: p = text; break;
        case GgufTokenKind::Byte: {
            int b = byte_token_value(text);
            if (b >= 0) p.assign(1, static_cast<char>(b));
            break;
        }
        case GgufTokenKind::Unused:
        case GgufTokenKind::Undefined: break;
        }
        max_piece_bytes_ = std::max(max_piece_bytes_, p.size());
    }
}

std::vector<int32_t> GgufBpeTokenizer::encode(std::string_view text, bool add_special,
                                              bool parse_special) const {
    std::vector<int32_t> out;
    out.reserve(text.size() / 3 + 8);
    if (add_special && add_bos_) out.push_back(bos_);
    std::vector<AddedTokenMatcher::Segment> segments;
    added_.split(text, parse_special, segments);
    struct ToModel final : HfPreTokenizer::WordSink {
        const BpeModel &model;
        bool cached;
        std::vector<int32_t> &out;
        ToModel(const BpeModel &m, bool c, std::vector<int32_t> &o) : model(m), cached(c), out(o) {}
        void word(std::string_view w) override { model.tokenize(w, out, cached); }
    };
    auto cache = model_.try_lock_cache();
    ToModel sink(model_, cache.owns_lock(), out);
    std::deque<std::string> storage;
    for (const auto &seg : segments) {
        if (seg.id >= 0) {
            out.push_back(seg.id);
        } else {
            pre_tokenizer_.for_each_word(seg.text, storage, sink);
            storage.clear();
        }
    }
    if (add_special && add_eos_) out.push_back(eos_);
    return out;
}

void GgufBpeTokenizer::decode_append(DecodeState &state, int32_t id, bool render_special,
                                     std::string &out) const {
    state.prev = id;
    if (!valid(id)) return;
    GgufTokenKind k = kind_[static_cast<size_t>(id)];
    if (gguf_hidden_kind(k) && !render_special) return;
    const std::string &p = pieces_[static_cast<size_t>(id)];
    if (p.empty()) return;
    out += p;
    state.emitted_text = true;
}

} // namespace

std::unique_ptr<Tokenizer> make_gguf_bpe_tokenizer(const GgufVocab &vocab) {
    const GgufPreTokenizer &pre = gguf_pre_tokenizer(vocab.pre);
    return std::make_unique<GgufBpeTokenizer>(vocab, pre, gguf_token_kinds(vocab));
}

} // namespace llm
