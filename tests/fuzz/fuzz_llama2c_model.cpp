// The llama2.c checkpoint loader on hostile files: the input is the .bin,
// loaded with the real tok512 tokenizer. Whatever loads is then run.
#include <string>
#include <string_view>

#include "fuzz_support.h"
#include "support/test_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const std::string model_path = fuzz::scratch_dir() + "/model.bin";
    static const std::string tokenizer = test::shared_path("models/tok512.bin");
    const std::string_view bytes(reinterpret_cast<const char *>(data), size);
    fuzz::put_file(model_path, &bytes);

    llm_model_params p = llm_model_default_params();
    p.tokenizer_path = tokenizer.c_str();
    // The weight type comes from the input's length so that every in-memory
    // layout is reached, deterministically for a given input.
    p.weight_type = static_cast<int32_t>(size % 5);
    p.use_mmap = (size / 5) % 2 == 0;
    llm_model *m = reinterpret_cast<llm_model *>(&p); // must be overwritten
    llm_status s = llm_model_load(model_path.c_str(), &p, &m);
    fuzz::expect_handled(s, "llm_model_load");
    if (s != LLM_OK) {
        if (m != nullptr) fuzz::violation("llm_model_load failed but left *out set");
        return 0;
    }
    fuzz::exercise_model(m);
    llm_model_free(m);
    return 0;
}
