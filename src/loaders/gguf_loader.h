// GGUF models (llama.cpp's single-file format): the container is parsed by
// gguf_file.h, then the architecture's keys and tensor names are mapped onto
// the one model description. Architectures are rows of a table (llama,
// qwen2); a new one that the engine can run is a new row, not a new loader.
//
// Matrices stay in the file's type and point into the memory map (Q4_0 ..
// Q6_K as GGUF stores them); GGUF's Q8_0 is repacked into libllm's Q8_0
// layout at load. Norm gains and biases are widened to fp32.
#pragma once

#include <memory>
#include <string>

#include "model/model.h"
#include "tokenizer/gguf_vocab.h"

namespace llm {

struct LoadOptions;

// Config, weights, end-of-generation ids, metadata and the default system
// prompt, without the tokenizer (the weights are checked with
// validate_weights); the tokenizer.ggml.* data goes to `vocab` (empty
// fields for absent keys).
std::unique_ptr<Model> load_gguf_weights(const std::string &path, const LoadOptions &options,
                                         GgufVocab &vocab);

// load_gguf_weights + make_gguf_tokenizer: a complete, validated model.
std::unique_ptr<Model> load_gguf(const std::string &path, const LoadOptions &options);

} // namespace llm
