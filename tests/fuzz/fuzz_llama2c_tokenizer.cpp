// The tokenizer.bin loader on hostile files, for three vocabulary sizes: the
// real stories260K (512), and two synthetic checkpoints (300: room for the
// byte pieces; 3: too small for byte fallback).
#include <string>
#include <string_view>

#include "fuzz_support.h"
#include "support/llama2c_writer.h"
#include "support/test_support.h"

namespace {
struct Models {
    std::string tokenizer;
    std::vector<std::string> checkpoints;
    Models() : tokenizer(fuzz::scratch_dir() + "/tokenizer.bin") {
        checkpoints.push_back(test::shared_path("models/stories260K.bin"));
        for (int32_t vocab : {300, 3}) {
            std::string path = fuzz::scratch_dir() + "/vocab" + std::to_string(vocab) + ".bin";
            test::write_file(path, test::make_llama2c_checkpoint({4, 4, 1, 2, 1, vocab, 4}));
            checkpoints.push_back(path);
        }
    }
};
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const Models models;
    const std::string_view bytes(reinterpret_cast<const char *>(data), size);
    fuzz::put_file(models.tokenizer, &bytes);
    llm_model_params p = llm_model_default_params();
    p.tokenizer_path = models.tokenizer.c_str();
    for (const std::string &checkpoint : models.checkpoints) {
        llm_model *m = nullptr;
        llm_status s = llm_model_load(checkpoint.c_str(), &p, &m);
        fuzz::expect_handled(s, "llm_model_load");
        if (s != LLM_OK) continue;
        // Every id decodes, alone and in sequence.
        std::vector<llm_token> all(static_cast<size_t>(llm_model_n_vocab(m)));
        for (size_t i = 0; i < all.size(); ++i)
            all[i] = static_cast<llm_token>(i);
        fuzz::check_decode(m, all.data(), all.size(), 0);
        fuzz::exercise_model(m);
        llm_model_free(m);
    }
    return 0;
}
