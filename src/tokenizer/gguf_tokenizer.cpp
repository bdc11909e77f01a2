#include "common/error.h"
#include "tokenizer/gguf_tokenizers.h"
#include "tokenizer/gguf_vocab.h"
#include "tokenizer/tokenizer.h"

namespace llm {

std::unique_ptr<Tokenizer> make_gguf_tokenizer(const GgufVocab &vocab) {
    if (vocab.model == "gpt2") return make_gguf_bpe_tokenizer(vocab);
    if (vocab.model == "llama") return make_gguf_spm_tokenizer(vocab);
    fail(LLM_ERR_UNSUPPORTED, "GGUF tokenizer.ggml.model '", vocab.model,
         "' is not supported (gpt2 and llama are)");
}

} // namespace llm
