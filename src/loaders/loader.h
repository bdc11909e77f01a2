// Entry point for loading any supported model: picks the loader from the
// file's content (not its name), then applies load-time conversions.
#pragma once

#include <memory>
#include <string>

#include "model/model.h"

namespace llm {

struct LoadOptions {
    std::string tokenizer_path; // llama2.c only; empty = tokenizer.bin beside the model
    int32_t weight_type = 0;    // LLM_WEIGHTS_*
    bool use_mmap = true;
};

std::unique_ptr<Model> load_model(const std::string &path, const LoadOptions &options);

} // namespace llm
