// Encoding arbitrary bytes. Input: one byte of options (which model, the
// LLM_TOKENIZE_* flags), then the text. Checks: ids in range, the size query
// agrees, llama2.c tokenizers give run.c's ids (reference_encode.h) and
// decode back to the text, and both decoders agree (check_decode).
#include <memory>
#include <string>
#include <string_view>

#include "fuzz_models.h"
#include "fuzz_support.h"
#include "reference_encode.h"

namespace {
// The reference is O(n^2) in the text length: compare on shorter texts only.
constexpr size_t kReferenceMaxBytes = 160;

const fuzz::ReferenceEncoder *reference_for(size_t index) {
    static std::vector<std::unique_ptr<fuzz::ReferenceEncoder>> refs = [] {
        std::vector<std::unique_ptr<fuzz::ReferenceEncoder>> out;
        for (const auto &m : fuzz::tokenizer_models())
            out.push_back(m.llama2c_tokenizer.empty()
                              ? nullptr
                              : std::make_unique<fuzz::ReferenceEncoder>(
                                    m.llama2c_tokenizer, llm_model_n_vocab(m.model.get())));
        return out;
    }();
    return refs[index].get();
}
} // namespace

// Loading the models (qwen2-tiny's tokenizer.json is 11 MB) happens once,
// before fuzzing, so it counts against no input's time limit.
extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    reference_for(0);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    const auto &models = fuzz::tokenizer_models();
    const size_t index = (data[0] >> 2) % models.size();
    const llm_model *m = models[index].model.get();
    const int32_t flags = data[0] & 3;
    const std::string_view text(reinterpret_cast<const char *>(data + 1), size - 1);

    size_t n = 0;
    llm_status s = llm_tokenize(m, text.data(), text.size(), flags, nullptr, 0, &n);
    fuzz::expect_handled(s, "llm_tokenize");
    if (s != LLM_OK && s != LLM_ERR_BUFFER_TOO_SMALL)
        fuzz::violation(std::string("llm_tokenize size query: ") + llm_status_str(s));
    std::vector<llm_token> ids(n);
    size_t got = 0;
    if (n > 0 && (llm_tokenize(m, text.data(), text.size(), flags, ids.data(), n - 1, &got) !=
                      LLM_ERR_BUFFER_TOO_SMALL ||
                  got != n))
        fuzz::violation("llm_tokenize: a buffer one id short was not refused");
    if (llm_tokenize(m, text.data(), text.size(), flags, ids.data(), n, &got) != LLM_OK || got != n)
        fuzz::violation("llm_tokenize failed with the size it asked for");
    for (llm_token t : ids)
        if (t < 0 || t >= llm_model_n_vocab(m))
            fuzz::violation("llm_tokenize produced id " + std::to_string(t));

    const bool add_special = flags & LLM_TOKENIZE_ADD_SPECIAL;
    const bool plain = !(flags & LLM_TOKENIZE_PARSE_SPECIAL);
    if (const fuzz::ReferenceEncoder *ref = reference_for(index); ref && plain) {
        if (text.size() <= kReferenceMaxBytes && text.find('\0') == std::string_view::npos &&
            ref->encode(text, add_special) != std::vector<int>(ids.begin(), ids.end()))
            fuzz::violation("llm_tokenize differs from run.c's encode() on " + models[index].name);
        // Byte fallback makes llama2.c's encoding lossless: decoding gives the
        // text back (the dummy-prefix space is dropped after BOS only).
        bool specials = false;
        for (size_t i = add_special ? 1 : 0; i < ids.size(); ++i)
            specials |= llm_token_is_special(m, ids[i]) != 0;
        if (!specials && !text.empty()) {
            std::string back(ids.size() * 64 + 16, '\0');
            s = llm_detokenize(m, ids.data(), ids.size(), 0, back.data(), back.size(), &got);
            if (s != LLM_OK) fuzz::violation("llm_detokenize of llm_tokenize's ids failed");
            back.resize(got);
            if (back != (add_special ? "" : " ") + std::string(text))
                fuzz::violation("decode(encode(text)) != text on " + models[index].name);
        }
    }
    fuzz::check_decode(m, ids.data(), ids.size(), 0);
    return 0;
}
