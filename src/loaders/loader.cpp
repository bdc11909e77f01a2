#include "loaders/loader.h"

#include "common/error.h"
#include "loaders/gguf_file.h"
#include "loaders/gguf_loader.h"
#include "loaders/hf_loader.h"
#include "loaders/llama2c_loader.h"
#include "loaders/pooling_config.h"
#include "loaders/safetensors.h"
#include "model/convert_weights.h"

namespace llm {

std::unique_ptr<Model> load_model(const std::string &path, const LoadOptions &options) {
    if (path.empty()) fail(LLM_ERR_INVALID_ARGUMENT, "model path is empty");
    if (!path_exists(path)) fail(LLM_ERR_NOT_FOUND, path, ": no such file or folder");
    std::unique_ptr<Model> model;
    if (path_is_directory(path)) {
        model = load_hf_folder(path, options);
        read_pooling_config(path, *model);
    } else {
        // Sniff the content: "GGUF" is a safetensors header length far
        // above its limit; a safetensors header (u64 length, then '{') is
        // never a plausible llama2.c header (its second int32 would be 0).
        const std::string head = read_file_prefix(path, 9);
        const auto *bytes = reinterpret_cast<const uint8_t *>(head.data());
        if (looks_like_gguf(bytes, head.size()))
            model = load_gguf(path, options);
        else if (looks_like_safetensors(bytes, head.size()))
            model = load_hf_folder(path, options);
        else
            model = load_llama2c(path, options);
    }
    convert_weights(*model, options.weight_type);
    model->metadata.emplace("general.architecture", model->config.arch);
    return model;
}

} // namespace llm
