// The Hugging Face folder loader (config.json + model.safetensors) on hostile
// files, through llm_model_load. The input is split at fuzz::kPartMarker:
//   config.json --8<-- model.safetensors [--8<-- generation_config.json]
// A part that is absent leaves its file out. tokenizer.json and
// tokenizer_config.json are the real ones of stories260K-hf.
#include <filesystem>
#include <string>
#include <string_view>

#include "fuzz_support.h"
#include "support/test_support.h"

namespace {
struct Folder {
    std::string dir = fuzz::scratch_dir() + "/hf-model";
    Folder() {
        std::filesystem::create_directory(dir);
        for (const char *name : {"tokenizer.json", "tokenizer_config.json"})
            std::filesystem::create_symlink(
                test::shared_path(std::string("models/stories260K-hf/") + name), dir + "/" + name);
    }
};
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const Folder folder;
    auto parts = fuzz::split_parts(data, size);
    const char *const names[] = {"config.json", "model.safetensors", "generation_config.json"};
    for (size_t i = 0; i < 3; ++i)
        fuzz::put_file(folder.dir + "/" + names[i], i < parts.size() ? &parts[i] : nullptr);

    llm_model_params p = llm_model_default_params();
    p.weight_type = static_cast<int32_t>(size % 5);
    p.use_mmap = (size / 5) % 2 == 0;
    llm_model *m = nullptr;
    llm_status s = llm_model_load(folder.dir.c_str(), &p, &m);
    fuzz::expect_handled(s, "llm_model_load");
    if (s != LLM_OK) {
        if (m != nullptr) fuzz::violation("llm_model_load failed but left *out set");
        return 0;
    }
    fuzz::exercise_model(m);
    llm_model_free(m);
    return 0;
}
