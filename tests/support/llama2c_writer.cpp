#include "support/llama2c_writer.h"

#include <cstdlib>

namespace test {

Llama2cSections llama2c_sections(const Llama2cHeader &h) {
    const uint64_t dim = static_cast<uint64_t>(h.dim), hidden = static_cast<uint64_t>(h.hidden_dim);
    const uint64_t layers = static_cast<uint64_t>(h.n_layers);
    const uint64_t vocab = static_cast<uint64_t>(std::llabs(h.vocab_size));
    const uint64_t head_size = dim / static_cast<uint64_t>(h.n_heads);
    const uint64_t kv_dim = head_size * static_cast<uint64_t>(h.n_kv_heads);
    Llama2cSections s;
    s.embedding = 0;
    s.rms_att = s.embedding + vocab * dim;
    s.wq = s.rms_att + layers * dim;
    s.wk = s.wq + layers * dim * dim;
    s.wv = s.wk + layers * kv_dim * dim;
    s.wo = s.wv + layers * kv_dim * dim;
    s.rms_ffn = s.wo + layers * dim * dim;
    s.w1 = s.rms_ffn + layers * dim;
    s.w2 = s.w1 + layers * hidden * dim;
    s.w3 = s.w2 + layers * dim * hidden;
    s.rms_final = s.w3 + layers * hidden * dim;
    s.freq_cis = s.rms_final + dim;
    s.wcls = s.freq_cis + static_cast<uint64_t>(h.seq_len) * head_size; // real + imag halves
    s.end = s.wcls + (h.vocab_size < 0 ? vocab * dim : 0);
    return s;
}

std::string llama2c_header_bytes(const Llama2cHeader &h) {
    const int32_t fields[7] = {h.dim,        h.hidden_dim, h.n_layers, h.n_heads,
                               h.n_kv_heads, h.vocab_size, h.seq_len};
    return std::string(reinterpret_cast<const char *>(fields), sizeof fields);
}

namespace {
std::string image(const Llama2cHeader &h, const std::vector<float> &w) {
    std::string out = llama2c_header_bytes(h);
    out.append(reinterpret_cast<const char *>(w.data()), w.size() * sizeof(float));
    return out;
}

void fill(std::vector<float> &w, uint64_t begin, uint64_t end, float value) {
    for (uint64_t i = begin; i < end; ++i)
        w[i] = value;
}
} // namespace

std::string make_llama2c_checkpoint(const Llama2cHeader &h, uint32_t seed) {
    const Llama2cSections s = llama2c_sections(h);
    std::vector<float> w(s.end);
    uint32_t state = seed ? seed : 1;
    for (float &v : w) { // xorshift32: values in [-0.25, 0.25)
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        v = (static_cast<float>(state >> 8) / 16777216.0f - 0.5f) * 0.5f;
    }
    // Norm gains near 1 keep activations in a useful range.
    for (auto [begin, end] :
         {std::pair{s.rms_att, s.wq}, {s.rms_ffn, s.w1}, {s.rms_final, s.freq_cis}})
        for (uint64_t i = begin; i < end; ++i)
            w[i] += 1.0f;
    return image(h, w);
}

std::string make_llama2c_successor_checkpoint(const std::vector<int32_t> &next, int32_t seq_len) {
    const int32_t vocab = static_cast<int32_t>(next.size());
    const Llama2cHeader h{vocab, 2, 1, 2, 2, -vocab, seq_len};
    const Llama2cSections s = llama2c_sections(h);
    const uint64_t dim = static_cast<uint64_t>(vocab);
    std::vector<float> w(s.end, 0.0f);
    for (uint64_t a = 0; a < dim; ++a)
        w[s.embedding + a * dim + a] = 1.0f; // e_a
    fill(w, s.rms_att, s.wq, 1.0f);
    fill(w, s.rms_ffn, s.w1, 1.0f);
    fill(w, s.rms_final, s.freq_cis, 1.0f);
    for (uint64_t a = 0; a < dim; ++a) // logits = Wcls x: row next[a] picks e_a
        w[s.wcls + static_cast<uint64_t>(next[a]) * dim + a] = 1.0f;
    return image(h, w);
}

} // namespace test
