// The chat template with arbitrary messages. Input: one byte of options
// (add_assistant), then messages separated by fuzz::kPartMarker, each
// "role\ncontent". Runs on the first model with a chat template (qwen2-tiny
// once Hugging Face folders load; until then every call must return
// UNSUPPORTED cleanly).
#include <algorithm>
#include <cstdio>
#include <string>

#include "fuzz_models.h"
#include "fuzz_support.h"

namespace {
const llm_model *chat_model() {
    static const llm_model *model = [] {
        const auto &models = fuzz::tokenizer_models();
        for (const auto &m : models) {
            llm_chat_message msg{"user", "hi"};
            size_t n = 0;
            if (llm_chat_format(m.model.get(), &msg, 1, 1, nullptr, 0, &n) ==
                LLM_ERR_BUFFER_TOO_SMALL)
                return m.model.get();
        }
        std::fprintf(stderr, "fuzz_chat: no model with a chat template loads; fuzzing the "
                             "UNSUPPORTED path only\n");
        return models.front().model.get();
    }();
    return model;
}

// Roles and contents are C strings: a copy ends at the first NUL.
std::string c_string(std::string_view v) {
    return std::string(v.substr(0, v.find('\0')));
}

size_t count(const std::vector<llm_token> &ids, llm_token t) {
    return static_cast<size_t>(std::count(ids.begin(), ids.end(), t));
}
} // namespace

// Loading the models (qwen2-tiny's tokenizer.json is 11 MB) happens once,
// before fuzzing, so it counts against no input's time limit.
extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    chat_model();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    const llm_model *m = chat_model();
    const int32_t add_assistant = data[0] & 1;
    std::vector<std::string> roles, contents;
    for (std::string_view part : fuzz::split_parts(data + 1, size - 1)) {
        const size_t nl = part.find('\n');
        roles.push_back(c_string(part.substr(0, nl)));
        contents.push_back(c_string(nl == std::string_view::npos ? "" : part.substr(nl + 1)));
    }
    std::vector<llm_chat_message> msgs;
    for (size_t i = 0; i < roles.size(); ++i)
        msgs.push_back({roles[i].c_str(), contents[i].c_str()});

    size_t need = 0;
    llm_status s = llm_chat_format(m, msgs.data(), msgs.size(), add_assistant, nullptr, 0, &need);
    fuzz::expect_handled(s, "llm_chat_format");
    if (s != LLM_OK && s != LLM_ERR_BUFFER_TOO_SMALL) return 0; // UNSUPPORTED, empty role...
    std::string text(need, '\0');
    size_t got = 0;
    if (llm_chat_format(m, msgs.data(), msgs.size(), add_assistant, text.data(), text.size(),
                        &got) != LLM_OK ||
        got != need)
        fuzz::violation("llm_chat_format failed with the size it asked for");

    // The formatted prompt tokenizes; the model's own template decides how
    // turns map to <|im_start|> markers (Qwen's merges tool messages and
    // drops unknown roles), but a generation prompt always opens one.
    size_t n = 0;
    const int32_t flags = LLM_TOKENIZE_PARSE_SPECIAL | LLM_TOKENIZE_ADD_SPECIAL;
    s = llm_tokenize(m, text.data(), text.size(), flags, nullptr, 0, &n);
    fuzz::expect_handled(s, "llm_tokenize");
    std::vector<llm_token> ids(n);
    if (llm_tokenize(m, text.data(), text.size(), flags, ids.data(), n, &n) != LLM_OK)
        fuzz::violation("llm_tokenize of a chat prompt failed");
    llm_token im_start = LLM_TOKEN_NONE;
    const std::string marker = "<|im_start|>";
    size_t one = 0;
    if (llm_tokenize(m, marker.data(), marker.size(), LLM_TOKENIZE_PARSE_SPECIAL, &im_start, 1,
                     &one) == LLM_OK &&
        one == 1 && count(ids, im_start) < static_cast<size_t>(add_assistant != 0))
        fuzz::violation("a chat turn lost its <|im_start|> token");
    fuzz::check_decode(m, ids.data(), ids.size(), LLM_DETOKENIZE_RENDER_SPECIAL);
    return 0;
}
