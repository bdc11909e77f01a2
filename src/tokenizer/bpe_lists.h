// A BPE model's vocabulary and merges as flat lists over one byte buffer,
// what BpeModel is built from: read straight from tokenizer.json's text
// (tokenizer_json_reader.h: a 262k-token vocabulary and 500k merges as JSON
// trees cost a million small allocations), or taken from the JSON tree.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace llm {

struct BpeLists {
    struct Token {
        uint32_t begin, end; // in bytes
        int64_t id;          // >= 0; BpeModel checks the upper bound
    };
    // A merge: left is bytes[begin, split), right bytes[split, end), so
    // bytes[begin, end) is the token they make.
    struct Merge {
        uint32_t begin, split, end;
    };

    std::string bytes;
    std::vector<Token> vocab;
    std::vector<Merge> merges;
    // Whether vocab / merges hold model.vocab / model.merges (else they are
    // still in the JSON tree).
    bool has_vocab = false, has_merges = false;

    std::string_view text(uint32_t begin, uint32_t end) const {
        return std::string_view(bytes.data() + begin, end - begin);
    }
    // Appends s to bytes; returns the offset after it.
    uint32_t append(std::string_view s) {
        if (s.size() > UINT32_MAX - bytes.size())
            fail(LLM_ERR_FORMAT, "tokenizer vocabulary over 4 GiB");
        bytes.append(s);
        return static_cast<uint32_t>(bytes.size());
    }
    void add_token(std::string_view s, int64_t id) {
        uint32_t begin = static_cast<uint32_t>(bytes.size());
        vocab.push_back({begin, append(s), id});
    }
    void add_merge(std::string_view left, std::string_view right) {
        uint32_t begin = static_cast<uint32_t>(bytes.size());
        uint32_t split = append(left);
        merges.push_back({begin, split, append(right)});
    }
};

} // namespace llm
