// Hugging Face config.json and generation_config.json: the architecture and
// shapes of a Qwen2 or Llama checkpoint, and its end-of-generation ids.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/model.h"

namespace llm {

struct HfConfig {
    ModelConfig model;
    bool tie_word_embeddings = false;
    std::vector<int32_t> eos_token_ids; // config.json's eos_token_id (int or list)
};

// Parses config.json's text (`path` names it in messages). Throws
// llm::Error: FORMAT for malformed JSON or missing/mistyped fields,
// UNSUPPORTED naming the field for features libllm lacks (model_type,
// rope_scaling, sliding window, hidden_act, biases, quantization),
// BAD_DIMENSIONS for sizes outside ModelLimits or inconsistent with each other.
HfConfig parse_hf_config(const std::string &json_text, const std::string &path);

// generation_config.json's eos_token_id (int, list or absent).
std::vector<int32_t> parse_generation_eos(const std::string &json_text, const std::string &path);

} // namespace llm
