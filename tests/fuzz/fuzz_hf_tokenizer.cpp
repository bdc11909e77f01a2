// The tokenizer.json reader on hostile files, through llm_model_load of a
// Hugging Face folder. The input is split at fuzz::kPartMarker:
//   tokenizer.json [--8<-- tokenizer_config.json]
// config.json, generation_config.json and model.safetensors are the real
// ones of stories260K-hf (vocab 512).
#include <filesystem>
#include <string>
#include <string_view>

#include "fuzz_support.h"
#include "support/test_support.h"

namespace {
struct Folder {
    std::string dir = fuzz::scratch_dir() + "/hf-tokenizer";
    Folder() {
        std::filesystem::create_directory(dir);
        for (const char *name : {"config.json", "generation_config.json", "model.safetensors"})
            std::filesystem::create_symlink(
                test::shared_path(std::string("models/stories260K-hf/") + name), dir + "/" + name);
    }
};
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const Folder folder;
    auto parts = fuzz::split_parts(data, size);
    const char *const names[] = {"tokenizer.json", "tokenizer_config.json"};
    for (size_t i = 0; i < 2; ++i)
        fuzz::put_file(folder.dir + "/" + names[i], i < parts.size() ? &parts[i] : nullptr);

    llm_model *m = nullptr;
    llm_status s = llm_model_load(folder.dir.c_str(), nullptr, &m);
    fuzz::expect_handled(s, "llm_model_load");
    if (s != LLM_OK) {
        if (m != nullptr) fuzz::violation("llm_model_load failed but left *out set");
        return 0;
    }
    std::vector<llm_token> all(static_cast<size_t>(llm_model_n_vocab(m)));
    for (size_t i = 0; i < all.size(); ++i)
        all[i] = static_cast<llm_token>(i);
    fuzz::check_decode(m, all.data(), all.size(), 0);
    fuzz::exercise_model(m);
    llm_model_free(m);
    return 0;
}
