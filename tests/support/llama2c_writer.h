// Builds llama2.c checkpoint images (the legacy .bin layout) in memory, for
// tests and fuzz targets that need models of chosen shapes, valid or not.
#pragma once

#include <cstdint>
#include <string>

namespace test {

struct Llama2cHeader {
    int32_t dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len;
};

// The float32 values that follow a header, as llama2.c's export writes them
// (a negative vocab_size adds an unshared classifier). Assumes sane dims.
uint64_t llama2c_float_count(const Llama2cHeader &h);

// The 28 header bytes.
std::string llama2c_header_bytes(const Llama2cHeader &h);

// Header plus llama2c_float_count(h) small pseudo-random weights (norm gains
// near 1), deterministic for a given seed.
std::string make_llama2c_checkpoint(const Llama2cHeader &h, uint32_t seed = 1);

} // namespace test
