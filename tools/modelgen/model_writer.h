// Writers for model files, used by llm-make-model (benchmark models) and by
// the tests (converted and deliberately broken checkpoints). Tensors are
// produced one row at a time, so a multi-gigabyte model is never held in
// memory.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "model/model.h"

namespace llm::gen {

// Llama 3's rope_scaling fields (config.rope_freq_divisors derives from them).
struct Llama3RopeScaling {
    double factor = 0, low_freq_factor = 0, high_freq_factor = 0, original_max_positions = 0;
};

// A model to write: its config plus what config.json needs beyond it.
struct ModelSpec {
    // arch "llama", "qwen2", "qwen3" or "gemma3"; the fields as the arch has
    // them (Gemma 3: layer_attention, attention_scale, post_norms, ...).
    ModelConfig config;
    bool tied = true; // lm_head shares the token embedding
    int32_t bos = -1;
    std::vector<int32_t> eos;
    Llama3RopeScaling llama3_rope; // factor 0: none
};

// Gemma stores each RMSNorm weight as w for a gain of 1 + w: the value a
// norm tensor holds in HF layout is its gain minus this.
float hf_norm_shift(const ModelConfig &c);

// One tensor in Hugging Face naming and layout (q/k rows in rotate_half
// order, Gemma's norms as w). row(r, out) writes row r (shape.back() floats; a 1-D tensor is
// one row).
struct TensorSource {
    std::string name;
    std::vector<int64_t> shape;
    std::function<void(int64_t row, float *out)> row;

    int64_t rows() const { return shape.size() < 2 ? 1 : shape[0]; }
    int64_t cols() const { return shape.back(); }
};

// The tensors of `spec` in HF naming, with shapes but no `row` yet.
std::vector<TensorSource> hf_tensor_layout(const ModelSpec &spec);

// One .safetensors file holding `tensors` as `dtype` (F32, BF16 or F16).
void write_safetensors(const std::string &path, const std::vector<TensorSource> &tensors,
                       DType dtype);

struct HfWriteOptions {
    DType dtype = DType::BF16;
    int shards = 1; // > 1: model-0000i-of-0000n.safetensors + model.safetensors.index.json
};

// config.json, generation_config.json and the weights into folder `dir`
// (which must exist). Tokenizer files are the caller's business.
void write_hf_folder(const std::string &dir, const ModelSpec &spec,
                     const std::vector<TensorSource> &tensors, const HfWriteOptions &options);
std::string hf_config_json(const ModelSpec &spec, DType dtype);

// A llama2.c legacy (version 0) checkpoint: Llama only, fp32, no bias, q/k
// rows turned back into llama2.c's interleaved RoPE order.
void write_llama2c(const std::string &path, const ModelSpec &spec,
                   const std::vector<TensorSource> &tensors);

} // namespace llm::gen
