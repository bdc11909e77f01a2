// Hugging Face config.json and generation_config.json: the architecture and
// shapes of a Qwen2, Qwen3, Llama or Gemma 3 (text) checkpoint, and its
// end-of-generation ids.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/model.h"

namespace llm {

struct HfConfig {
    ModelConfig model;
    bool tie_word_embeddings = false;
    // Added to every RMSNorm weight at load (Gemma stores w and computes
    // x / rms * (1 + w): the model gets 1 + w, the engine's gain).
    float norm_offset = 0.0f;
    std::vector<int32_t> eos_token_ids; // config.json's eos_token_id (int or list)
};

// Parses config.json's text (`path` names it in messages). Throws
// llm::Error: FORMAT for malformed JSON or missing/mistyped fields,
// UNSUPPORTED naming the field for features libllm lacks (model_type,
// rope_scaling, sliding window, hidden_act, biases, quantization),
// BAD_DIMENSIONS for sizes outside ModelLimits or inconsistent with each other.
HfConfig parse_hf_config(const std::string &json_text, const std::string &path);

// Llama 3's rope_scaling as RoPE frequency divisors (ModelConfig::
// rope_freq_divisors), per transformers' _compute_llama3_parameters.
std::vector<float> llama3_rope_divisors(int64_t head_dim, double theta, double factor,
                                        double low_freq_factor, double high_freq_factor,
                                        double original_max_positions);

// generation_config.json's eos_token_id (int, list or absent).
std::vector<int32_t> parse_generation_eos(const std::string &json_text, const std::string &path);

} // namespace llm
