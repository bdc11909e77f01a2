// (stub: filled in by the GGUF tokenizer work)
#include "common/error.h"
#include "tokenizer/gguf_vocab.h"
#include "tokenizer/tokenizer.h"

namespace llm {

std::unique_ptr<Tokenizer> make_gguf_tokenizer(const GgufVocab &vocab) {
    fail(LLM_ERR_UNSUPPORTED, "GGUF tokenizer model '", vocab.model, "' is not implemented yet");
}

} // namespace llm
