// The pre-tokenizers GGUF's tokenizer.ggml.pre labels stand for in byte-level
// BPE vocabularies: the regexes llama.cpp's llm_tokenizer_bpe applies for the
// label (llama-vocab.cpp), in order, each cutting every piece into its
// matches and the text between them (tokenizer.json's Split with Isolated),
// and the flags llama.cpp's loader sets with it.
#pragma once

#include <string>
#include <vector>

namespace llm {

struct GgufPreTokenizer {
    std::vector<std::string> regexes;
    bool ignore_merges = false; // a word that is a token is taken whole
    bool add_bos = false;       // the default of add_bos_token
};

// The pre-tokenizer of a label ("" = absent: llama.cpp's default);
// LLM_ERR_UNSUPPORTED naming a label libllm does not know.
const GgufPreTokenizer &gguf_pre_tokenizer(const std::string &label);

} // namespace llm
