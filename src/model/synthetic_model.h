// Random-weight models of any shape, built in memory: what llm-bench runs
// when given a shape name instead of a file. They have no tokenizer (token
// ids in, logits out) and are not reachable through the C API.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "model/model.h"

namespace llm {

// The named shapes: stories15M, stories42M, stories110M (llama2.c's
// TinyStories models), qwen2.5-0.5b, qwen3-0.6b, llama3.2-1b (with Llama 3's
// RoPE scaling) and gemma3-1b (sliding windows, local/global RoPE). False for
// an unknown name.
bool synthetic_config(const std::string &name, ModelConfig &out);

// Weights uniform in +-1/sqrt(fan_in) (activations stay O(1) through the
// layers), norm gains 1 (every norm the config asks for), biases small; matrices stored as `type`
// (fp32 where `type` cannot hold them). Tied embeddings unless `untied`.
std::unique_ptr<Model> make_synthetic_model(const ModelConfig &config, DType type, uint64_t seed,
                                            bool untied = false);

} // namespace llm
