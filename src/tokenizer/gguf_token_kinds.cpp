#include "tokenizer/gguf_token_kinds.h"

#include <string_view>

#include "common/error.h"

namespace llm {

namespace {
// Texts llama.cpp's vocabulary loader puts in its end-of-generation set,
// making them control tokens whatever their type.
const char *const kEndOfGenerationTexts[] = {
    "<|eot_id|>",
    "<|im_end|>",
    "<|end|>",
    "<|return|>",
    "<|call|>",
    "<|flush|>",
    "<|calls|>",
    "<end_of_turn>",
    "<|endoftext|>",
    "</s>",
    "<|eom_id|>",
    "<EOT>",
    "_<EOT>",
    "[EOT]",
    "[EOS]",
    "<|end_of_text|>",
    "<end_of_utterance>",
    "<eos>",
    "<turn|>",
    "<|tool_response>",
    "<\xef\xbd\x9c"
    "end\xe2\x96\x81of\xe2\x96\x81sentence\xef\xbd\x9c>",
    "[e~[",
};
// gpt-oss's tokens llama.cpp always renders (user-defined).
const char *const kAlwaysRenderedTexts[] = {"<|channel|>", "<|message|>", "<|start|>",
                                            "<|constrain|>"};

// llama.cpp's fixes by token text, in its order (llama-vocab.cpp, load()).
void apply_text_fixes(const GgufVocab &v, std::vector<GgufTokenKind> &kind) {
    // The first id of each text named above (every text the fixes look up
    // is): one pass over the vocabulary, skipping tokens by their first byte.
    std::unordered_map<std::string_view, long> first_id;
    bool first_byte[256] = {};
    auto want = [&](const char *text) {
        first_id.emplace(text, -1);
        first_byte[static_cast<uint8_t>(text[0])] = true;
    };
    for (const char *t : kEndOfGenerationTexts)
        want(t);
    for (const char *t : kAlwaysRenderedTexts)
        want(t);
    for (size_t i = 0; i < v.tokens.size(); ++i) {
        const std::string &t = v.tokens[i];
        if (t.empty() || !first_byte[static_cast<uint8_t>(t[0])]) continue;
        auto it = first_id.find(t);
        if (it != first_id.end() && it->second < 0) it->second = static_cast<long>(i);
    }
    auto find = [&](const char *text) -> long {
        auto it = first_id.find(text);
        return it == first_id.end() ? -1 : it->second;
    };
    for (const char *t : kEndOfGenerationTexts)
        if (find(t) >= 0) kind[static_cast<size_t>(find(t))] = GgufTokenKind::Control;
    for (const char *t : kAlwaysRenderedTexts)
        if (find(t) >= 0) kind[static_cast<size_t>(find(t))] = GgufTokenKind::UserDefined;
    // o200k_harmony / solar-open: <|end|> ends a message, not the generation.
    const long end = find("<|end|>");
    if (end >= 0 && ((find("<|return|>") >= 0 && find("<|call|>") >= 0) ||
                     (find("<|calls|>") >= 0 && find("<|flush|>") >= 0)))
        kind[static_cast<size_t>(end)] = GgufTokenKind::UserDefined;
    // Gemma 4 / PaddleOCR: </s> is plain text beside <|tool_response>.
    const long s = find("</s>");
    if (s >= 0 && find("<|tool_response>") >= 0)
        kind[static_cast<size_t>(s)] = GgufTokenKind::Normal;
}
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
    apply_text_fixes(v, k.kind);
    for (size_t i = 0; i < n; ++i) {
        const std::string &text = v.tokens[i];
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
