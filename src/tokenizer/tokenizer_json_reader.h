// Reads tokenizer.json with model.vocab and model.merges straight into flat
// lists (bpe_lists.h) instead of JSON trees: for Gemma 3's 262k tokens and
// 515k merges the tree is most of the load time. The rest of the file becomes
// a JSON tree as usual.
#pragma once

#include <string>

#include "tokenizer/bpe_lists.h"
#include "tokenizer/hf_json.h"

namespace llm {

struct TokenizerJson {
    hf_json::Json root;
    // The lists read from model.vocab / model.merges (then absent from root),
    // or empty with has_vocab / has_merges false.
    BpeLists lists;
};

// Same acceptance and errors as hf_json::parse (FORMAT for malformed text or
// a duplicate key). A vocabulary or merges of another shape (a value that is
// not a non-negative integer, a merge that is not "left right" with one
// space or ["left", "right"]) is left to the tree: the text is parsed again
// by hf_json::parse, and BpeModel reports what is wrong with it.
TokenizerJson read_tokenizer_json(const std::string &text, const std::string &file);

} // namespace llm
