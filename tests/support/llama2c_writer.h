// Builds llama2.c checkpoint images (the legacy .bin layout) in memory, for
// tests and fuzz targets that need models of chosen shapes, valid or not.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace test {

struct Llama2cHeader {
    int32_t dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len;
};

// Where each tensor starts, in floats after the header, in the order
// llama2.c's export writes them (a negative vocab_size adds an unshared
// classifier at the end). Assumes sane dims.
struct Llama2cSections {
    uint64_t embedding, rms_att, wq, wk, wv, wo, rms_ffn, w1, w2, w3, rms_final, freq_cis, wcls,
        end;
};
Llama2cSections llama2c_sections(const Llama2cHeader &h);

// The 28 header bytes.
std::string llama2c_header_bytes(const Llama2cHeader &h);

// Header plus small pseudo-random weights (norm gains near 1),
// deterministic for a given seed.
std::string make_llama2c_checkpoint(const Llama2cHeader &h, uint32_t seed = 1);

// A checkpoint whose greedy choice after token a is next[a], for every a
// (vocab = next.size() = dim, even): one-hot embeddings, zero attention and
// FFN weights, unit norm gains, and an unshared classifier mapping e_a to
// next[a]. Lets a test script exactly what a model generates.
std::string make_llama2c_successor_checkpoint(const std::vector<int32_t> &next, int32_t seq_len);

} // namespace test
