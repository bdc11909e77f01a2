// Tokenizers described by a Hugging Face tokenizer.json (+ the optional
// tokenizer_config.json beside it): byte-level BPE (GPT-2 / Qwen) and
// SentencePiece-style BPE with byte fallback (Llama).
//
// The pipeline is read from the file (pieces in this folder): added tokens
// (added_tokens.h), normalizer (hf_normalizer.h), pre-tokenizer
// (hf_pretokenizer.h, regexes in pretokenizer_regex.h), BPE model
// (bpe_model.h), post-processor (hf_post_processor.h), decoder
// (hf_decoder.h). Behaviour follows Hugging Face tokenizers:
//   - encode: special added tokens written in the text are matched only with
//     parse_special; non-special added tokens always are (as in HF);
//     add_special puts the post-processor's tokens around the ids, with
//     tokenizer_config.json's add_bos_token / add_eos_token overriding BOS
//     and EOS as transformers does (Qwen: none; Llama: <s>).
//   - decode_append: exact bytes (bytes that are not UTF-8 are not replaced:
//     streaming callers hold them back); special tokens skipped unless
//     render_special; the decoder's Strip drops the first space of the text.
//   - bos()/eos(): bos_token / eos_token of tokenizer_config.json (a string
//     or {"content": ...}); without that file, the template's first token.
#pragma once

#include <memory>
#include <string>

#include "tokenizer/tokenizer.h"

namespace llm {

// tokenizer_config_path may be empty (no such file). Throws llm::Error:
// NOT_FOUND / IO for files, FORMAT for malformed JSON or a missing model,
// UNSUPPORTED for tokenizer types libllm does not implement (the message
// names the field).
std::unique_ptr<Tokenizer> load_hf_tokenizer(const std::string &tokenizer_json_path,
                                             const std::string &tokenizer_config_path);

} // namespace llm
