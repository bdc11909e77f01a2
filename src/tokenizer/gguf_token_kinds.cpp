#include "tokenizer/gguf_token_kinds.h"

#include "common/error.h"

namespace llm {

namespace {
// Texts llama.cpp's vocabulary loader adds to its end-of-generation set and
// turns into control tokens when a converter left them normal.
const char *const kEndOfGenerationTexts[] = {
    "<|eot_id|>", "<|im_end|>",    "<|end|>",         "<|return|>",         "<|call|>", "<|flush|>",
    "<|calls|>",  "<end_of_turn>", "<|endoftext|>",   "<|eom_id|>",         "<EOT>",    "_<EOT>",
    "[EOT]",      "[EOS]",         "<|end_of_text|>", "<end_of_utterance>",
};
} // namespace

void check_gguf_token_id(const GgufVocab &vocab, int32_t id, const char *key) {
    if (id < -1 || (id >= 0 && static_cast<size_t>(id) >= vocab.tokens.size()))
        fail(LLM_ERR_FORMAT, "GGUF ", key, " ", id, " is outside the vocabulary of ",
             vocab.tokens.size(), " tokens");
}

GgufTokenKinds gguf_token_kinds(const GgufVocab &v) {
    const size_t n = v.tokens.size();
    if (n == 0) fail(LLM_ERR_FORMAT, "GGUF tokenizer.ggml.tokens is empty");
    if (n >= static_cast<size_t>(INT32_MAX))
        fail(LLM_ERR_FORMAT, "GGUF tokenizer.ggml.tokens has ", n, " tokens");
    if (!v.scores.empty() && v.scores.size() != n)
        fail(LLM_ERR_FORMAT, "GGUF tokenizer.ggml.scores has ", v.scores.size(), " entries for ", n,
             " tokens");
    if (!v.token_types.empty() && v.token_types.size() != n)
        fail(LLM_ERR_FORMAT, "GGUF tokenizer.ggml.token_type has ", v.token_types.size(),
             " entries for ", n, " tokens");
    check_gguf_token_id(v, v.bos, "tokenizer.ggml.bos_token_id");
    check_gguf_token_id(v, v.eos, "tokenizer.ggml.eos_token_id");
    check_gguf_token_id(v, v.unk, "tokenizer.ggml.unknown_token_id");
    check_gguf_token_id(v, v.pad, "tokenizer.ggml.padding_token_id");
    check_gguf_token_id(v, v.eot, "tokenizer.ggml.eot_token_id");
    check_gguf_token_id(v, v.eom, "tokenizer.ggml.eom_token_id");

    GgufTokenKinds k;
    k.kind.assign(n, GgufTokenKind::Normal);
    for (size_t i = 0; i < v.token_types.size(); ++i) {
        int32_t t = v.token_types[i];
        k.kind[i] = t >= 1 && t <= 6 ? static_cast<GgufTokenKind>(t) : GgufTokenKind::Undefined;
    }
    for (size_t i = 0; i < n; ++i) {
        const std::string &text = v.tokens[i];
        for (const char *eog : kEndOfGenerationTexts)
            if (text == eog) k.kind[i] = GgufTokenKind::Control;
        GgufTokenKind kind = k.kind[i];
        if (text.empty() || (kind != GgufTokenKind::Control && kind != GgufTokenKind::Unknown &&
                             kind != GgufTokenKind::UserDefined))
            continue;
        AddedToken a;
        a.id = static_cast<int32_t>(i);
        a.content = text;
        a.special = kind != GgufTokenKind::UserDefined;
        k.added.push_back(std::move(a));
        k.added_by_text.emplace(text, static_cast<int32_t>(i)); // the first id keeps a text
    }
    return k;
}

} // namespace llm
