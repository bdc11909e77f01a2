#include "fuzz_models.h"

#include "fuzz_support.h"
#include "support/llama2c_writer.h"
#include "support/test_support.h"

namespace fuzz {

const std::vector<FuzzModel> &tokenizer_models() {
    static const std::vector<FuzzModel> models = [] {
        std::vector<FuzzModel> out;
        auto add = [&](const std::string &name, const std::string &path, const std::string &tok) {
            if (llm_model *m = try_load(path, tok.empty() ? nullptr : tok.c_str()))
                out.push_back({name, test::ModelPtr(m), tok});
        };
        add("stories260K", test::shared_path("models/stories260K.bin"),
            test::shared_path("models/tok512.bin"));
        // The smallest checkpoint with the Llama 2 vocabulary: only its
        // tokenizer matters here.
        const std::string vocab32k = scratch_dir() + "/vocab32000.bin";
        test::write_file(vocab32k, test::make_llama2c_checkpoint({2, 2, 1, 1, 1, 32000, 2}));
        add("llama2-32000", vocab32k, test::shared_path("models/tokenizer.bin"));
        add("stories260K-hf", test::shared_path("models/stories260K-hf"), "");
        add("qwen2-tiny", test::shared_path("models/qwen2-tiny"), "");
        if (out.empty()) violation("no model could be loaded");
        return out;
    }();
    return models;
}

} // namespace fuzz
