// Tokenizers described by a Hugging Face tokenizer.json (+ the optional
// tokenizer_config.json beside it): byte-level BPE (GPT-2 / Qwen) and
// SentencePiece-style BPE with byte fallback (Llama).
#pragma once

#include <memory>
#include <string>

#include "tokenizer/tokenizer.h"

namespace llm {

// tokenizer_config_path may be empty (no such file). Throws llm::Error:
// NOT_FOUND / IO for files, FORMAT for malformed JSON or a missing model,
// UNSUPPORTED for tokenizer types libllm does not implement.
std::unique_ptr<Tokenizer> load_hf_tokenizer(const std::string &tokenizer_json_path,
                                             const std::string &tokenizer_config_path);

} // namespace llm
