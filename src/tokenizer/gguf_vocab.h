// The tokenizer a GGUF file describes in its tokenizer.ggml.* metadata, as
// the GGUF loader reads it, and the Tokenizer made from it. (Keys per the
// GGUF specification, docs/gguf.md of ggml.)
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace llm {

class Tokenizer;

struct GgufVocab {
    std::string model; // tokenizer.ggml.model: "gpt2" (byte-level BPE), "llama" (SentencePiece)
    std::string pre;   // tokenizer.ggml.pre: the pre-tokenizer's label, "" if absent
    std::vector<std::string> tokens; // tokenizer.ggml.tokens
    std::vector<float> scores;       // tokenizer.ggml.scores, empty if absent
    // tokenizer.ggml.token_type, empty if absent: 1 normal, 2 unknown,
    // 3 control, 4 user defined, 5 unused, 6 byte.
    std::vector<int32_t> token_types;
    std::vector<std::string> merges; // tokenizer.ggml.merges, "left right"
    // tokenizer.ggml.{bos,eos,unknown,padding,eot,eom}_token_id, -1 if absent.
    int32_t bos = -1, eos = -1, unk = -1, pad = -1, eot = -1, eom = -1;
    // tokenizer.ggml.add_bos_token / add_eos_token / add_space_prefix:
    // -1 if absent (the model type's default), else 0 or 1.
    int add_bos = -1, add_eos = -1, add_space_prefix = -1;
};

// The Tokenizer of a GGUF vocabulary; LLM_ERR_UNSUPPORTED names a model or
// pre-tokenizer label it does not know, LLM_ERR_FORMAT an inconsistent
// vocabulary (sizes of the arrays, ids out of range, merges of unknown
// tokens).
std::unique_ptr<Tokenizer> make_gguf_tokenizer(const GgufVocab &vocab);

} // namespace llm
