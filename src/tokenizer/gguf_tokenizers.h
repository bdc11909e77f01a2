// The two tokenizer models of GGUF vocabularies (make_gguf_tokenizer picks
// one by tokenizer.ggml.model).
#pragma once

#include <memory>

#include "tokenizer/gguf_vocab.h"
#include "tokenizer/tokenizer.h"

namespace llm {

// "gpt2": byte-level BPE (gguf_bpe_tokenizer.cpp).
std::unique_ptr<Tokenizer> make_gguf_bpe_tokenizer(const GgufVocab &vocab);
// "llama": SentencePiece-style scores (gguf_spm_tokenizer.cpp).
std::unique_ptr<Tokenizer> make_gguf_spm_tokenizer(const GgufVocab &vocab);

} // namespace llm
