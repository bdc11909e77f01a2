#include "tokenizer/hf_tokenizer.h"

#include "common/error.h"

namespace llm {

std::unique_ptr<Tokenizer> load_hf_tokenizer(const std::string &tokenizer_json_path,
                                             const std::string &) {
    fail(LLM_ERR_UNSUPPORTED, tokenizer_json_path, ": tokenizer.json is not supported yet");
}

} // namespace llm
