#include "tokenizer/llama2c_tokenizer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "common/error.h"
#include "tokenizer/pair_merge.h"
#include "tokenizer/replace_all.h"

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

uint32_t piece_hash(std::string_view s) { // FNV-1a: pieces are short
    uint32_t h = 2166136261u;
    for (char c : s)
        h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
    return h;
}
const char kSpaceMarker[] = "\xe2\x96\x81"; // U+2581
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
    // llama2.c's conventions: <unk> <s> </s> at ids 0..2, <0xXX> pieces at
    // ids 3..258 (a vocabulary too small to hold them falls back to <unk>),
    // BOS/EOS pieces written "\n<s>\n" / "\n</s>\n".
    tok->kinds_.assign(static_cast<size_t>(vocab_size), SpmPieceKind::Normal);
    std::vector<AddedToken> specials;
    for (int32_t i = 0; i < vocab_size; ++i) {
        const std::string &piece = tok->pieces_[static_cast<size_t>(i)];
        if (i < 3) {
            tok->kinds_[static_cast<size_t>(i)] =
                i == 0 ? SpmPieceKind::Unknown : SpmPieceKind::Control;
            AddedToken a;
            a.id = i;
            a.content = kSpecialText[i];
            a.special = true;
            specials.push_back(a);
        } else if (byte_piece_value(piece) >= 0) {
            tok->kinds_[static_cast<size_t>(i)] = SpmPieceKind::Byte;
        }
    }
    tok->matched_ = AddedTokenMatcher(std::move(specials));
    for (int32_t i = 0; i < 3 && i < vocab_size; ++i)
        tok->special_by_text_.emplace(kSpecialText[i], i);
    for (int b = 0; b < 256; ++b)
        tok->byte_ids_[b] = b + 3 < vocab_size ? b + 3 : 0;
    tok->index_pieces();
    tok->shown_ = tok->pieces_; // byte pieces show as their byte
    for (size_t i = 0; i < tok->pieces_.size(); ++i)
        if (tok->kinds_[i] == SpmPieceKind::Byte)
            tok->shown_[i].assign(1, static_cast<char>(byte_piece_value(tok->pieces_[i])));
    tok->piece_out_ = tok->pieces_;
    tok->space_id_ = tok->lookup(" "); // SentencePiece's dummy prefix
    return tok;
}

std::unique_ptr<Llama2cTokenizer> Llama2cTokenizer::from_pieces(SpmVocab v, const SpmRules &rules) {
    auto tok = std::unique_ptr<Llama2cTokenizer>(new Llama2cTokenizer());
    const size_t n = v.pieces.size();
    tok->rules_ = rules;
    tok->pieces_ = std::move(v.pieces);
    tok->scores_ = std::move(v.scores);
    tok->scores_.resize(n, 0.0f);
    tok->kinds_ = std::move(v.kinds);
    tok->kinds_.resize(n, SpmPieceKind::Normal);
    tok->bos_ = v.bos;
    tok->eos_ = v.eos;
    tok->add_bos_ = v.add_bos;
    tok->add_eos_ = v.add_eos;
    for (const AddedToken &a : v.matched)
        tok->special_by_text_.emplace(a.content, a.id);
    tok->matched_ = AddedTokenMatcher(std::move(v.matched));
    tok->index_pieces();
    for (size_t i = 0; i < n; ++i)
        if (tok->lookup(tok->pieces_[i]) != static_cast<int32_t>(i))
            fail(LLM_ERR_FORMAT, "GGUF tokenizer.ggml.tokens: token ", i, " '", tok->pieces_[i],
                 "' repeats token ", tok->lookup(tok->pieces_[i]));
    // A byte missing from the text's pieces is its <0xXX> piece, else the
    // one-byte piece (as llama.cpp's byte_to_token), else <unk>.
    for (int b = 0; b < 256; ++b) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", b);
        int32_t id = tok->lookup(name);
        if (id < 0) id = tok->lookup(std::string(1, static_cast<char>(b)));
        tok->byte_ids_[b] = id >= 0 ? id : v.unk;
    }
    tok->shown_.assign(n, std::string());
    for (size_t i = 0; i < n; ++i) {
        const std::string &p = tok->pieces_[i];
        std::string &shown = tok->shown_[i];
        switch (tok->kinds_[i]) {
        case SpmPieceKind::Normal:
            if (!rules.space_marker || !replace_all(p, kSpaceMarker, " ", shown)) shown = p;
            break;
        case SpmPieceKind::Byte: {
            int b = byte_piece_value(p);
            if (b >= 0) shown.assign(1, static_cast<char>(b));
            break;
        }
        case SpmPieceKind::Control:
        case SpmPieceKind::Unknown:
        case SpmPieceKind::UserDefined: shown = p; break;
        case SpmPieceKind::Other: break;
        }
        tok->max_piece_bytes_ = std::max(tok->max_piece_bytes_, shown.size());
    }
    tok->piece_out_ = tok->shown_;
    tok->space_id_ = -1; // the prefix is a character of the text (rules.space_marker)
    return tok;
}

void Llama2cTokenizer::index_pieces() {
    const size_t n = pieces_.size();
    size_t slots = 16;
    while (slots < n * 2)
        slots *= 2;
    index_.assign(slots, {0, -1});
    for (size_t i = 0; i < n; ++i) {
        const std::string &s = pieces_[i];
        max_piece_bytes_ = std::max(max_piece_bytes_, s.size());
        const uint32_t h = piece_hash(s);
        size_t at = h & (slots - 1);
        bool seen = false;
        for (; index_[at].id >= 0 && !seen; at = (at + 1) & (slots - 1))
            seen = index_[at].hash == h && pieces_[static_cast<size_t>(index_[at].id)] == s;
        if (!seen) index_[at] = {h, static_cast<int32_t>(i)}; // the first id wins
    }
}

int32_t Llama2cTokenizer::lookup(std::string_view s) const {
    const uint32_t h = piece_hash(s);
    const size_t mask = index_.size() - 1;
    for (size_t at = h & mask; index_[at].id >= 0; at = (at + 1) & mask)
        if (index_[at].hash == h && pieces_[static_cast<size_t>(index_[at].id)] == s)
            return index_[at].id;
    return -1;
}

int32_t Llama2cTokenizer::find_special(std::string_view text) const {
    auto it = special_by_text_.find(std::string(text));
    return it == special_by_text_.end() ? -1 : it->second;
}

// Characters looked up one by one, bytes for the unknown ones (as both
// llama2.c's encode() and llama.cpp's resegment() end up doing), before
// merging.
void Llama2cTokenizer::encode_plain(std::string_view text, std::vector<int32_t> &out) const {
    auto bytes = [&](std::string_view chars) {
        for (char c : chars) {
            int32_t id = byte_ids_[static_cast<uint8_t>(c)];
            if (id >= 0) out.push_back(id);
        }
    };
    size_t n = text.size();
    if (rules_.lead_byte_lengths) {
        for (size_t i = 0; i < n;) {
            uint8_t c = static_cast<uint8_t>(text[i]);
            size_t len = c < 0xC0 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
            std::string_view ch = text.substr(i, std::min(len, n - i));
            i += ch.size();
            int32_t id = lookup(ch);
            if (id >= 0)
                out.push_back(id);
            else
                bytes(ch);
        }
        return;
    }
    std::string buf;
    for (size_t i = 0; i < n; ++i) {
        unsigned char c = static_cast<unsigned char>(text[i]);
        if ((c & 0xC0) != 0x80) buf.clear();
        buf.push_back(static_cast<char>(c));
        bool next_is_continuation =
            i + 1 < n && (static_cast<unsigned char>(text[i + 1]) & 0xC0) == 0x80;
        if (next_is_continuation && buf.size() < 4) continue;
        int32_t id = lookup(buf);
        if (id >= 0)
            out.push_back(id);
        else
            bytes(buf);
        buf.clear();
    }
}

// Repeatedly merge the adjacent pair whose concatenation is the
// best-scoring piece (leftmost on ties): llama2.c's and llama.cpp's rule,
// with a heap instead of llama2.c's O(n^2) rescans, with the same result.
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
    if (add_special && add_bos_ && bos_ >= 0) out.push_back(bos_);
    std::vector<int32_t> run;
    if (rules_.add_space_prefix && !rules_.prefix_every_run && !text.empty() && space_id_ >= 0)
        run.push_back(space_id_); // merged with what follows
    // Each plain run is merged on its own: merges never cross a special token.
    auto finish_run = [&] {
        merge(run);
        out.insert(out.end(), run.begin(), run.end());
        run.clear();
    };
    std::vector<AddedTokenMatcher::Segment> segments;
    matched_.split(text, parse_special, segments);
    const char *space = rules_.space_marker ? kSpaceMarker : " ";
    bool after_special = true;
    std::string buf, escaped;
    for (const auto &seg : segments) {
        if (seg.id >= 0) {
            finish_run();
            out.push_back(seg.id);
            after_special = true;
            continue;
        }
        std::string_view plain = seg.text;
        const bool prefix = rules_.add_space_prefix && rules_.prefix_every_run && after_special;
        if (prefix || rules_.space_marker) {
            buf.assign(prefix ? space : "");
            if (rules_.space_marker && replace_all(plain, " ", space, escaped))
                buf += escaped;
            else
                buf.append(plain);
            plain = buf;
        }
        encode_plain(plain, run);
        after_special = false;
    }
    finish_run();
    if (add_special && add_eos_ && eos_ >= 0) out.push_back(eos_);
    return out;
}

void Llama2cTokenizer::decode_append(DecodeState &state, int32_t id, bool render_special,
                                     std::string &out) const {
    int32_t prev = state.prev;
    state.prev = id;
    if (id < 0 || id >= vocab_size() || (hidden(id) && !render_special)) return;
    const std::string &p = shown_[static_cast<size_t>(id)];
    if (kinds_[static_cast<size_t>(id)] != SpmPieceKind::Byte && rules_.add_space_prefix &&
        bos_ >= 0 && prev == bos_ && !p.empty() && p[0] == ' ') {
        out.append(p, 1, std::string::npos); // SentencePiece strips the space after BOS
    } else {
        out += p;
    }
    state.emitted_text = true;
}

} // namespace llm
