#include "loaders/loader.h"

#include <algorithm>

#include "common/error.h"
#include "loaders/llama2c_loader.h"
#include "model/convert_weights.h"

namespace llm {

std::unique_ptr<Model> load_model(const std::string &path, const LoadOptions &options) {
    if (path.empty()) fail(LLM_ERR_INVALID_ARGUMENT, "model path is empty");
    if (!path_exists(path)) fail(LLM_ERR_NOT_FOUND, path, ": no such file or folder");
    std::unique_ptr<Model> model;
    if (path_is_directory(path)) {
        fail(LLM_ERR_UNSUPPORTED, path, ": Hugging Face folders are not supported yet");
    } else {
        model = load_llama2c(path, options);
    }
    convert_weights(*model, options.weight_type);
    return model;
}

} // namespace llm
