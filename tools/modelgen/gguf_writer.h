// A GGUF (version 3) writer for llm-make-model: one self-contained file that
// llama.cpp loads, with llama.cpp's tensor names and metadata keys, the
// weights in one of GGUF's types, and the tokenizer as GGUF metadata.
//
// What a written file means: the same network as its source. Sources are in
// Hugging Face layout (q/k rows in rotate_half order); for arch "llama"
// llama.cpp rotates adjacent pairs (its HF converter permutes the q/k rows
// of HF checkpoints), so q/k rows go back to the interleaved order (a
// llama2.c checkpoint ends up with its own rows, unpermuted). For "qwen2",
// "qwen3" and "gemma3" llama.cpp rotates halves (NEOX), and rows are written
// as they are. Llama 3's rope scaling becomes rope_freqs.weight (each
// frequency's divisor); Gemma's norm weights w are written as 1 + w, as
// llama.cpp's converter does.
//
// Weight types (--gguf-type):
//   f32 f16 bf16 q8_0 q4_0 q4_1 q5_0 q5_1 q4_k q5_k q6_k: every matrix in
//     that type, as llama-quantize --pure does (embedding and output too);
//   q4_k_m: llama-quantize's Q4_K_M mix (src/llama-quant.cpp,
//     llama_tensor_get_type_impl, llama.cpp 007dbbf3): output.weight, or
//     token_embd.weight when the output is tied to it, in Q6_K (Q8_0 if its
//     rows are not a multiple of 256); attn_v and ffn_down of layer i in
//     Q6_K when use_more_bits(i, n_layers) (i < n/8, or i >= 7n/8, or
//     (i - n/8) % 3 == 2), Q4_K everywhere else.
// A matrix whose row length is not a multiple of its type's block falls
// back per matrix as llama-quantize's tensor_type_fallback does: Q4_K ->
// Q5_0, Q5_K -> Q5_1, Q6_K -> Q8_0, and F16 when even that does not fit.
// (llama-quantize gives up on a 32-block type that does not fit; here those
// matrices fall back to F16 too, e.g. stories260K's ffn_down, 172 wide.)
// Norm gains and biases are always F32.
#pragma once

#include <string>
#include <vector>

#include "model_writer.h"

namespace llm::gen {

struct GgufWriteOptions {
    std::string type = "f32"; // one of the --gguf-type names above
    std::string name;         // general.name
    // Tokenizer metadata from one of (neither: no tokenizer in the file):
    std::string hf_tokenizer_dir;  // tokenizer.json (+ tokenizer_config.json)
    std::string llama2c_tokenizer; // a llama2.c tokenizer.bin
};

// The --gguf-type names, for usage text and checks.
std::vector<std::string> gguf_type_names();

void write_gguf(const std::string &path, const ModelSpec &spec,
                const std::vector<TensorSource> &tensors, const GgufWriteOptions &options);

} // namespace llm::gen
