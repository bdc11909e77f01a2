#include "support/llama2c_writer.h"

#include <cstring>
#include <vector>

namespace test {

uint64_t llama2c_float_count(const Llama2cHeader &h) {
    const uint64_t dim = static_cast<uint64_t>(h.dim), hidden = static_cast<uint64_t>(h.hidden_dim);
    const uint64_t layers = static_cast<uint64_t>(h.n_layers);
    const uint64_t vocab = static_cast<uint64_t>(
        h.vocab_size < 0 ? -static_cast<int64_t>(h.vocab_size) : h.vocab_size);
    const uint64_t head_size = dim / static_cast<uint64_t>(h.n_heads);
    const uint64_t kv_dim = head_size * static_cast<uint64_t>(h.n_kv_heads);
    uint64_t n = vocab * dim; // token embedding
    n += layers * (2 * dim + 2 * dim * dim + 2 * kv_dim * dim + 3 * hidden * dim);
    n += dim;                                          // final norm
    n += static_cast<uint64_t>(h.seq_len) * head_size; // freq_cis real + imag
    if (h.vocab_size < 0) n += vocab * dim;            // classifier
    return n;
}

std::string llama2c_header_bytes(const Llama2cHeader &h) {
    const int32_t fields[7] = {h.dim,        h.hidden_dim, h.n_layers, h.n_heads,
                               h.n_kv_heads, h.vocab_size, h.seq_len};
    return std::string(reinterpret_cast<const char *>(fields), sizeof fields);
}

std::string make_llama2c_checkpoint(const Llama2cHeader &h, uint32_t seed) {
    std::vector<float> w(static_cast<size_t>(llama2c_float_count(h)));
    uint32_t state = seed ? seed : 1;
    for (float &v : w) { // xorshift32: values in [-0.25, 0.25)
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        v = (static_cast<float>(state >> 8) / 16777216.0f - 0.5f) * 0.5f;
    }
    // Norm gains (rms_att and rms_ffn of every layer, rms_final) near 1, so
    // activations stay in a useful range.
    const size_t dim = static_cast<size_t>(h.dim), layers = static_cast<size_t>(h.n_layers);
    const size_t vocab =
        static_cast<size_t>(h.vocab_size < 0 ? -static_cast<int64_t>(h.vocab_size) : h.vocab_size);
    const size_t head_size = dim / static_cast<size_t>(h.n_heads);
    const size_t kv_dim = head_size * static_cast<size_t>(h.n_kv_heads);
    const size_t hidden = static_cast<size_t>(h.hidden_dim);
    size_t off = vocab * dim;
    auto gains = [&](size_t start, size_t n) {
        for (size_t i = 0; i < n; ++i)
            w[start + i] += 1.0f;
    };
    gains(off, layers * dim); // rms_att
    off += layers * dim + layers * (2 * dim * dim + 2 * kv_dim * dim);
    gains(off, layers * dim); // rms_ffn
    off += layers * dim + layers * 3 * hidden * dim;
    gains(off, dim); // rms_final
    std::string out = llama2c_header_bytes(h);
    out.append(reinterpret_cast<const char *>(w.data()), w.size() * sizeof(float));
    return out;
}

} // namespace test
