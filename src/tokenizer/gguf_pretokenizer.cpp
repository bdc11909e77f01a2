#include "tokenizer/gguf_pretokenizer.h"

#include <cstring>

#include "common/error.h"

namespace llm {

namespace {
// The regexes as llama.cpp writes them: tokenizer.json's (?i:'s|...) is
// spelled '[sS]|..., which differs from it only for characters that fold to
// s/t/... without being them (U+017F long s).
const char kGpt2[] = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))";
const char kLlama3[] =
    R"((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
const char kQwen2[] =
    R"((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

const char kGpt4o[] =
    R"([^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))*((?=[\p{L}])([^A-Z]))+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))+((?=[\p{L}])([^A-Z]))*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
const char kTekken[] =
    R"([^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))*((?=[\p{L}])([^A-Z]))+|[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))+((?=[\p{L}])([^A-Z]))*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
const char kBloom[] = R"( ?[^(\s|.,!?…。，、।۔،)]+)";

struct Entry {
    const char *labels[8]; // null-terminated
    GgufPreTokenizer pre;
};

const std::vector<Entry> &entries() {
    static const std::vector<Entry> table = {
        // No label, or "default": llama.cpp's default chain.
        {{"", "default", nullptr},
         {{R"([\p{P}\$\+<=>\^~\|]+)", kGpt2, R"(\p{N}+)", "[0-9][0-9][0-9]"}, false, false}},
        // "gpt2" is not a label llama.cpp knows ("gpt-2" is); taken as GPT-2's.
        {{"gpt-2", "gpt2", "phi-2", "mpt", "olmo", "jais", "exaone4", nullptr},
         {{kGpt2}, false, false}},
        {{"llama3", "llama-v3", "llama-bpe", "falcon3", "pixtral", nullptr},
         {{kLlama3}, true, true}},
        {{"dbrx", "smaug-bpe", "chatglm-bpe", "glm4", nullptr}, {{kLlama3}, false, false}},
        {{"tekken", nullptr}, {{kTekken}, true, true}},
        {{"gpt-4o", "llama4", nullptr}, {{kGpt4o}, false, false}},
        {{"falcon", nullptr},
         {{R"([\p{P}\$\+<=>\^~\|`]+)", kGpt2, "[0-9][0-9][0-9]"}, false, false}},
        {{"deepseek-coder", nullptr},
         {{"[\r\n]", R"(\s?\p{L}+)", R"(\s?\p{P}+)", "[一-龥ࠀ-一가-퟿]+", R"(\p{N})"},
          false,
          false}},
        {{"deepseek-v3", nullptr},
         {{R"(\p{N}{1,3})", "[一-龥぀-ゟ゠-ヿ]+",
           R"([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)"},
          false,
          false}},
        {{"bloom", "poro-chat", "gpt3-finnish", nullptr}, {{kBloom}, false, false}},
        {{"viking", nullptr}, {{kBloom, R"(\p{N})"}, false, false}},
        {{"qwen2", "deepseek-r1-qwen", "stablelm2", "megrez", nullptr}, {{kQwen2}, false, false}},
        {{"smollm", "starcoder", "refact", "command-r", "codeshell", "exaone", "minerva-7b",
          nullptr},
         {{R"(\p{N})", kGpt2}, false, false}},
    };
    return table;
}
} // namespace

const GgufPreTokenizer &gguf_pre_tokenizer(const std::string &label) {
    for (const Entry &e : entries())
        for (const char *const *l = e.labels; *l; ++l)
            if (label == *l) return e.pre;
    fail(LLM_ERR_UNSUPPORTED, "GGUF tokenizer.ggml.pre '", label,
         "' is not a pre-tokenizer libllm knows (default, gpt-2, llama-bpe, qwen2, smollm and "
         "their aliases are)");
}

} // namespace llm
