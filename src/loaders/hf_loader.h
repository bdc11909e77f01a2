// Hugging Face model folders: config.json, model.safetensors (or
// model.safetensors.index.json + shards), tokenizer.json,
// tokenizer_config.json, generation_config.json. Qwen2 and Llama.
//
// Matrices stay in their file's dtype (bf16 stays bf16) and point into the
// memory-mapped files; only norm gains and biases are widened to fp32.
#pragma once

#include <memory>
#include <string>

#include "model/model.h"

namespace llm {

struct LoadOptions;

// The folder of `path`: `path` itself if it is a folder, else the folder of
// the .safetensors file it names.
std::string hf_folder_of(const std::string &path);

// Config, weights and end-of-generation ids, without the tokenizer (the
// weights are checked with validate_weights). `path` is a folder or a
// .safetensors file with config.json beside it.
std::unique_ptr<Model> load_hf_weights(const std::string &path, const LoadOptions &options);

// load_hf_weights + tokenizer.json: a complete, validated model.
std::unique_ptr<Model> load_hf_folder(const std::string &path, const LoadOptions &options);

} // namespace llm
