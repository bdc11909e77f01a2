#include "tokenizer/llama2c_tokenizer.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/error.h"
#include "tokenizer/pair_merge.h"

namespace llm {

namespace {
// Upper bound for one piece: real vocabularies stay below 100 bytes.
constexpr int32_t kMaxPieceLength = 1 << 16;

// "<0xAB>" -> 0xAB, or -1.
int byte_piece_value(const std::string &p) {
    if (p.size() != 6 || p.compare(0, 3, "<0x") != 0 || p[5] != '>') return -1;
    auto hex = [](char c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        return -1;
    };
    int hi = hex(p[3]), lo = hex(p[4]);
    return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

const char *const kSpecialText[3] = {"<unk>", "<s>", "</s>"};
} // namespace

std::unique_ptr<Llama2cTokenizer> Llama2cTokenizer::load(const MappedFile &file,
                                                         int32_t vocab_size) {
    const uint8_t *p = file.data();
    const size_t size = file.size();
    if (vocab_size <= 0)
        fail(LLM_ERR_BAD_DIMENSIONS, "vocab size ", vocab_size, " is not positive");
    if (size < 4) fail(LLM_ERR_TRUNCATED, file.path(), ": tokenizer file is only ", size, " bytes");
    int32_t max_len;
    std::memcpy(&max_len, p, 4);
    if (max_len <= 0 || max_len > kMaxPieceLength)
        fail(LLM_ERR_FORMAT, file.path(), ": max_token_length ", max_len, " is out of range");

    auto tok = std::unique_ptr<Llama2cTokenizer>(new Llama2cTokenizer());
    // Every entry takes at least 8 bytes: reserve no more than the file can
    // hold, whatever vocab_size claims.
    const size_t fits = std::min(static_cast<size_t>(vocab_size), (size - 4) / 8);
    tok->pieces_.reserve(fits);
    tok->scores_.reserve(fits);
    size_t off = 4;
    for (int32_t i = 0; i < vocab_size; ++i) {
        if (size - off < 8)
            fail(LLM_ERR_TOKENIZER_MISMATCH, file.path(), ": holds only ", i,
                 " tokens but the model's vocabulary has ", vocab_size);
        float score;
        int32_t len;
        std::memcpy(&score, p + off, 4);
        std::memcpy(&len, p + off + 4, 4);
        off += 8;
        if (len < 0 || len > max_len)
            fail(LLM_ERR_FORMAT, file.path(), ": token ", i, " has length ", len,
                 " (max_token_length is ", max_len, ")");
        if (size - off < static_cast<size_t>(len))
            fail(LLM_ERR_TRUNCATED, file.path(), ": token ", i, " runs past the end of the file");
        if (!std::isfinite(score))
            fail(LLM_ERR_FORMAT, file.path(), ": token ", i, " has a non-finite score");
        tok->pieces_.emplace_back(reinterpret_cast<const char *>(p + off),
                                  static_cast<size_t>(len));
        tok->scores_.push_back(score);
        off += static_cast<size_t>(len);
    }
    for (int32_t i = 0; i < vocab_size; ++i) {
        const std::string &s = tok->pieces_[static_cast<size_t>(i)];
        tok->index_.emplace(std::string_view(s), i); // first id wins on duplicates
        tok->max_piece_bytes_ = std::max(tok->max_piece_bytes_, s.size());
    }
    return tok;
}

int32_t Llama2cTokenizer::lookup(std::string_view s) const {
    auto it = index_.find(s);
    return it == index_.end() ? -1 : it->second;
}

int32_t Llama2cTokenizer::find_special(std::string_view text) const {
    for (int32_t i = 0; i < 3 && i < vocab_size(); ++i)
        if (text == kSpecialText[i]) return i;
    return -1;
}

// Code points looked up one by one (byte fallback for unknown ones), as
// llama2.c's encode() does before merging.
void Llama2cTokenizer::encode_plain(std::string_view text, std::vector<int32_t> &out) const {
    size_t n = text.size();
    std::string buf;
    for (size_t i = 0; i < n; ++i) {
        unsigned char c = static_cast<unsigned char>(text[i]);
        if ((c & 0xC0) != 0x80) buf.clear();
        buf.push_back(static_cast<char>(c));
        bool next_is_continuation =
            i + 1 < n && (static_cast<unsigned char>(text[i + 1]) & 0xC0) == 0x80;
        if (next_is_continuation && buf.size() < 4) continue;
        int32_t id = lookup(buf);
        if (id >= 0) {
            out.push_back(id);
        } else {
            // <0xXX> pieces sit at ids 3..258; a vocabulary too small to hold
            // them falls back to <unk> (id 0).
            for (unsigned char b : buf) {
                int32_t byte_id = static_cast<int32_t>(b) + 3;
                out.push_back(byte_id < vocab_size() ? byte_id : 0);
            }
        }
        buf.clear();
    }
}

// Repeatedly merge the adjacent pair whose concatenation is the
// best-scoring piece (leftmost on ties): llama2.c's rule, with a heap
// instead of its O(n^2) rescans, with the same result.
void Llama2cTokenizer::merge(std::vector<int32_t> &ids) const {
    std::string joined;
    merge_pairs<float>(ids, [&](int32_t left, int32_t right, float &priority, int32_t &merged) {
        joined = pieces_[static_cast<size_t>(left)];
        joined += pieces_[static_cast<size_t>(right)];
        merged = lookup(joined);
        if (merged < 0) return false;
        priority = -scores_[static_cast<size_t>(merged)];
        return true;
    });
}

std::vector<int32_t> Llama2cTokenizer::encode(std::string_view text, bool add_special,
                                              bool parse_special) const {
    std::vector<int32_t> out;
    if (add_special) out.push_back(bos());
    std::vector<int32_t> run;
    if (!text.empty()) {
        int32_t space = lookup(" "); // SentencePiece's dummy prefix, merged with what follows
        if (space >= 0) run.push_back(space);
    }
    // Each plain run is merged on its own: merges never cross a special token.
    auto finish_run = [&](std::string_view plain) {
        encode_plain(plain, run);
        merge(run);
        out.insert(out.end(), run.begin(), run.end());
        run.clear();
    };
    size_t start = 0;
    for (size_t i = 0; parse_special && i < text.size();) {
        int32_t special = text[i] == '<' ? find_special_prefix(text.substr(i)) : -1;
        if (special < 0) {
            ++i;
            continue;
        }
        finish_run(text.substr(start, i - start));
        out.push_back(special);
        i += std::strlen(kSpecialText[special]);
        start = i;
    }
    finish_run(text.substr(start));
    return out;
}

int32_t Llama2cTokenizer::find_special_prefix(std::string_view text) const {
    for (int32_t s = 0; s < 3 && s < vocab_size(); ++s)
        if (text.substr(0, std::strlen(kSpecialText[s])) == kSpecialText[s]) return s;
    return -1;
}

void Llama2cTokenizer::decode_append(DecodeState &state, int32_t id, bool render_special,
                                     std::string &out) const {
    int32_t prev = state.prev;
    state.prev = id;
    if (id < 0 || id >= vocab_size() || (is_special(id) && !render_special)) return;
    const std::string &p = pieces_[static_cast<size_t>(id)];
    int byte = byte_piece_value(p);
    if (byte >= 0) {
        out.push_back(static_cast<char>(byte));
    } else if (prev == bos() && !p.empty() && p[0] == ' ') {
        out.append(p, 1, std::string::npos); // SentencePiece strips the space after BOS
    } else {
        out += p;
    }
    state.emitted_text = true;
}

} // namespace llm
