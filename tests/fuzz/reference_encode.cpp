#include "reference_encode.h"

#include <cstdint>
#include <cstring>

#include "fuzz_support.h"
#include "support/test_support.h"

namespace fuzz {

ReferenceEncoder::ReferenceEncoder(const std::string &tokenizer_bin, int vocab_size) {
    const std::string b = test::read_file(tokenizer_bin);
    size_t off = 4; // max_token_length
    for (int i = 0; i < vocab_size; ++i) {
        float score;
        int32_t len;
        if (off + 8 > b.size()) violation("reference encoder: short tokenizer file");
        std::memcpy(&score, b.data() + off, 4);
        std::memcpy(&len, b.data() + off + 4, 4);
        off += 8;
        if (len < 0 || off + static_cast<size_t>(len) > b.size())
            violation("reference encoder: bad entry");
        vocab_.push_back(b.substr(off, static_cast<size_t>(len)));
        scores_.push_back(score);
        off += static_cast<size_t>(len);
        ids_.emplace(vocab_.back(), i); // run.c's bsearch: the vocabularies have no duplicates
    }
}

int ReferenceEncoder::lookup(const std::string &s) const {
    auto it = ids_.find(s);
    return it == ids_.end() ? -1 : it->second;
}

std::vector<int> ReferenceEncoder::encode(std::string_view text, bool bos) const {
    std::vector<int> tokens;
    if (bos) tokens.push_back(1);
    if (!text.empty()) tokens.push_back(lookup(" "));
    std::string buf;
    for (size_t i = 0; i < text.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if ((c & 0xC0) != 0x80) buf.clear(); // not a continuation byte: a new code point
        buf.push_back(static_cast<char>(c));
        if (i + 1 < text.size() && (static_cast<unsigned char>(text[i + 1]) & 0xC0) == 0x80 &&
            buf.size() < 4)
            continue;
        const int id = lookup(buf);
        if (id != -1) {
            tokens.push_back(id);
        } else {
            for (unsigned char byte : buf)
                tokens.push_back(byte + 3);
        }
        buf.clear();
    }
    for (;;) {
        float best_score = -1e10f;
        int best_id = -1;
        size_t best_idx = 0;
        for (size_t i = 0; i + 1 < tokens.size(); ++i) {
            const int id = lookup(vocab_[static_cast<size_t>(tokens[i])] +
                                  vocab_[static_cast<size_t>(tokens[i + 1])]);
            if (id != -1 && scores_[static_cast<size_t>(id)] > best_score) {
                best_score = scores_[static_cast<size_t>(id)];
                best_id = id;
                best_idx = i;
            }
        }
        if (best_id == -1) break;
        tokens[best_idx] = best_id;
        tokens.erase(tokens.begin() + static_cast<long>(best_idx) + 1);
    }
    return tokens;
}

} // namespace fuzz
