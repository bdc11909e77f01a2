// Decoding arbitrary id sequences, out-of-range and negative ids included.
// Input: one byte of options (which model, render specials), then
// little-endian int32 ids.
#include <cstring>

#include "fuzz_models.h"
#include "fuzz_support.h"

// Loading the models (qwen2-tiny's tokenizer.json is 11 MB) happens once,
// before fuzzing, so it counts against no input's time limit.
extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    fuzz::tokenizer_models();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    const auto &models = fuzz::tokenizer_models();
    const llm_model *m = models[(data[0] >> 1) % models.size()].model.get();
    const int32_t flags = data[0] & LLM_DETOKENIZE_RENDER_SPECIAL;
    std::vector<llm_token> ids((size - 1) / 4);
    if (!ids.empty()) std::memcpy(ids.data(), data + 1, ids.size() * 4);
    // Most random int32 are far outside any vocabulary: also fold them into
    // it so that in-range sequences get explored.
    std::vector<llm_token> folded(ids);
    const int64_t n_vocab = llm_model_n_vocab(m);
    for (llm_token &t : folded)
        t = static_cast<llm_token>(static_cast<int64_t>(static_cast<uint32_t>(t)) % n_vocab);
    fuzz::check_decode(m, ids.data(), ids.size(), flags);
    fuzz::check_decode(m, folded.data(), folded.size(), flags);
    return 0;
}
