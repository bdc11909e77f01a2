#include "support/gguf_test_writer.h"

#include <cmath>
#include <cstring>
#include <stdexcept>

namespace test {

namespace gguf {

std::string u32(uint32_t v) {
    std::string s(4, '\0');
    for (int i = 0; i < 4; ++i)
        s[i] = static_cast<char>(v >> (8 * i));
    return s;
}

std::string u64(uint64_t v) {
    std::string s(8, '\0');
    for (int i = 0; i < 8; ++i)
        s[i] = static_cast<char>(v >> (8 * i));
    return s;
}

std::string f32(float v) {
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    return u32(bits);
}

std::string str(const std::string &s) {
    return u64(s.size()) + s;
}

uint64_t tensor_bytes(uint32_t type, const std::vector<uint64_t> &ne) {
    uint64_t n = 1;
    for (uint64_t d : ne)
        n *= d;
    switch (type) {
    case F32: return n * 4;
    case F16:
    case BF16: return n * 2;
    case Q4_0: return n / 32 * 18;
    case Q4_1: return n / 32 * 20;
    case Q5_0: return n / 32 * 22;
    case Q5_1: return n / 32 * 24;
    case Q8_0: return n / 32 * 34;
    case Q2_K: return n / 256 * 84;
    case Q4_K: return n / 256 * 144;
    case Q5_K: return n / 256 * 176;
    case Q6_K: return n / 256 * 210;
    }
    throw std::invalid_argument("gguf::tensor_bytes: type not known to the test writer");
}

} // namespace gguf

namespace {

// IEEE half, round to nearest even (normal range only: test values are small).
uint16_t to_f16(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const int32_t exp = static_cast<int32_t>((x >> 23) & 0xff) - 127 + 15;
    uint32_t man = x & 0x7fffffu;
    if (exp <= 0) return static_cast<uint16_t>(sign); // tiny: zero
    uint32_t h = sign | (static_cast<uint32_t>(exp) << 10) | (man >> 13);
    const uint32_t rest = man & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1))) ++h;
    return static_cast<uint16_t>(h);
}

uint16_t to_bf16(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    x += 0x7fffu + ((x >> 16) & 1u);
    return static_cast<uint16_t>(x >> 16);
}

std::string encode_floats(const std::vector<float> &v, uint32_t type) {
    std::string out;
    for (float x : v) {
        if (type == gguf::F32) {
            out += gguf::f32(x);
        } else {
            const uint16_t h = type == gguf::F16 ? to_f16(x) : to_bf16(x);
            out += static_cast<char>(h & 0xff);
            out += static_cast<char>(h >> 8);
        }
    }
    return out;
}

uint32_t next_random(uint32_t &state) {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
}

// A tensor's bytes: float types from pseudo-random values; block types are
// pseudo-random bytes no larger than 0x3b, so that every fp16 scale in them
// is finite and below 1 (the loader maps the bytes, it does not read them).
std::string tensor_data(uint32_t type, const std::vector<uint64_t> &ne, uint32_t seed, float scale,
                        float offset = 0.0f) {
    uint64_t n = 1;
    for (uint64_t d : ne)
        n *= d;
    if (type == gguf::F32 || type == gguf::F16 || type == gguf::BF16) {
        std::vector<float> v = gguf_random_floats(static_cast<size_t>(n), seed, scale);
        for (float &x : v)
            x += offset;
        return encode_floats(v, type);
    }
    std::string out(static_cast<size_t>(gguf::tensor_bytes(type, ne)), '\0');
    uint32_t state = seed;
    for (char &c : out)
        c = static_cast<char>(next_random(state) % 0x3c);
    return out;
}

} // namespace

std::vector<float> gguf_random_floats(size_t n, uint32_t seed, float scale) {
    std::vector<float> v(n);
    uint32_t state = seed * 2654435761u + 1;
    for (float &x : v)
        x = scale * (static_cast<float>(next_random(state) % 65536) / 32768.0f - 1.0f);
    return v;
}

void GgufWriter::add_u32(const std::string &key, uint32_t v) {
    add_raw(key, gguf::U32, gguf::u32(v));
}
void GgufWriter::add_i32(const std::string &key, int32_t v) {
    add_raw(key, gguf::I32, gguf::u32(static_cast<uint32_t>(v)));
}
void GgufWriter::add_u64(const std::string &key, uint64_t v) {
    add_raw(key, gguf::U64, gguf::u64(v));
}
void GgufWriter::add_f32(const std::string &key, float v) {
    add_raw(key, gguf::F32_VALUE, gguf::f32(v));
}
void GgufWriter::add_f64(const std::string &key, double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, 8);
    add_raw(key, gguf::F64, gguf::u64(bits));
}
void GgufWriter::add_bool(const std::string &key, bool v) {
    add_raw(key, gguf::BOOL, std::string(1, v ? '\1' : '\0'));
}
void GgufWriter::add_string(const std::string &key, const std::string &v) {
    add_raw(key, gguf::STRING, gguf::str(v));
}
void GgufWriter::add_strings(const std::string &key, const std::vector<std::string> &v) {
    std::string s = gguf::u32(gguf::STRING) + gguf::u64(v.size());
    for (const std::string &x : v)
        s += gguf::str(x);
    add_raw(key, gguf::ARRAY, s);
}
void GgufWriter::add_f32s(const std::string &key, const std::vector<float> &v) {
    std::string s = gguf::u32(gguf::F32_VALUE) + gguf::u64(v.size());
    for (float x : v)
        s += gguf::f32(x);
    add_raw(key, gguf::ARRAY, s);
}
void GgufWriter::add_i32s(const std::string &key, const std::vector<int32_t> &v) {
    std::string s = gguf::u32(gguf::I32) + gguf::u64(v.size());
    for (int32_t x : v)
        s += gguf::u32(static_cast<uint32_t>(x));
    add_raw(key, gguf::ARRAY, s);
}
void GgufWriter::add_raw(const std::string &key, uint32_t type, const std::string &value) {
    kvs.push_back({key, type, value});
}
void GgufWriter::add_tensor(const std::string &name, uint32_t type, std::vector<uint64_t> ne,
                            std::string data) {
    tensors.push_back({name, type, std::move(ne), std::move(data), -1});
}

void GgufWriter::remove_key(const std::string &key) {
    for (size_t i = 0; i < kvs.size(); ++i)
        if (kvs[i].key == key) kvs.erase(kvs.begin() + static_cast<std::ptrdiff_t>(i--));
}
void GgufWriter::remove_tensor(const std::string &name) {
    for (size_t i = 0; i < tensors.size(); ++i)
        if (tensors[i].name == name)
            tensors.erase(tensors.begin() + static_cast<std::ptrdiff_t>(i--));
}
GgufKv *GgufWriter::kv(const std::string &key) {
    for (GgufKv &k : kvs)
        if (k.key == key) return &k;
    return nullptr;
}
GgufTensor *GgufWriter::tensor(const std::string &name) {
    for (GgufTensor &t : tensors)
        if (t.name == name) return &t;
    return nullptr;
}

std::string GgufWriter::head() const {
    std::string s = "GGUF" + gguf::u32(version);
    s += gguf::u64(tensor_count_override >= 0 ? static_cast<uint64_t>(tensor_count_override)
                                              : tensors.size());
    s += gguf::u64(kv_count_override >= 0 ? static_cast<uint64_t>(kv_count_override) : kvs.size());
    for (const GgufKv &kv : kvs)
        s += gguf::str(kv.key) + gguf::u32(kv.type) + kv.value;
    uint64_t offset = 0;
    for (const GgufTensor &t : tensors) {
        s += gguf::str(t.name) + gguf::u32(static_cast<uint32_t>(t.ne.size()));
        for (uint64_t d : t.ne)
            s += gguf::u64(d);
        s += gguf::u32(t.type);
        s += gguf::u64(t.offset_override >= 0 ? static_cast<uint64_t>(t.offset_override) : offset);
        offset += t.data.size();
        offset += (alignment - offset % alignment) % alignment;
    }
    return s;
}

size_t GgufWriter::data_offset() const {
    const size_t n = head().size();
    return n + (alignment - n % alignment) % alignment;
}

std::string GgufWriter::build() const {
    std::string s = head();
    s.resize(data_offset(), '\0');
    for (const GgufTensor &t : tensors) {
        s += t.data;
        s.resize(s.size() + (alignment - (s.size() - data_offset()) % alignment) % alignment, '\0');
    }
    return s;
}

GgufWriter make_gguf_model(const GgufModelSpec &m) {
    GgufWriter w;
    const std::string a = m.arch;
    const uint32_t head_dim = m.dim / m.heads;
    w.add_string("general.architecture", a);
    w.add_string("general.name", "tiny " + a);
    w.add_u32(a + ".context_length", m.ctx);
    w.add_u32(a + ".embedding_length", m.dim);
    w.add_u32(a + ".block_count", m.layers);
    w.add_u32(a + ".feed_forward_length", m.hidden);
    w.add_u32(a + ".attention.head_count", m.heads);
    w.add_u32(a + ".attention.head_count_kv", m.kv_heads);
    w.add_f32(a + ".attention.layer_norm_rms_epsilon", 1e-6f);
    w.add_f32(a + ".rope.freq_base", 500000.0f);
    w.add_u32(a + ".rope.dimension_count", head_dim);

    const uint32_t n_tokens = m.n_tokens ? m.n_tokens : m.vocab;
    std::vector<std::string> tokens;
    std::vector<float> scores;
    std::vector<int32_t> types;
    for (uint32_t i = 0; i < n_tokens; ++i) {
        tokens.push_back(i == 0   ? "<unk>"
                         : i == 1 ? "<s>"
                         : i == 2 ? "</s>"
                                  : "t" + std::to_string(i));
        scores.push_back(-static_cast<float>(i));
        types.push_back(i == 0 ? 2 : i < 3 ? 3 : 1);
    }
    w.add_string("tokenizer.ggml.model", "llama");
    w.add_strings("tokenizer.ggml.tokens", tokens);
    w.add_f32s("tokenizer.ggml.scores", scores);
    w.add_i32s("tokenizer.ggml.token_type", types);
    w.add_u32("tokenizer.ggml.bos_token_id", 1);
    w.add_u32("tokenizer.ggml.eos_token_id", 2);
    w.add_u32("tokenizer.ggml.unknown_token_id", 0);
    w.add_bool("tokenizer.ggml.add_bos_token", true);

    uint32_t seed = m.seed * 1000;
    const uint64_t q = uint64_t{m.heads} * head_dim, kv = uint64_t{m.kv_heads} * head_dim;
    auto matrix = [&](const std::string &name, uint64_t rows, uint64_t cols) {
        w.add_tensor(name, m.matrix_type, {cols, rows},
                     tensor_data(m.matrix_type, {cols, rows}, ++seed, 0.5f));
    };
    auto vec = [&](const std::string &name, uint64_t n, float offset) {
        w.add_tensor(name, m.norm_type, {n}, tensor_data(m.norm_type, {n}, ++seed, 0.1f, offset));
    };
    matrix("token_embd.weight", m.vocab, m.dim);
    for (uint32_t i = 0; i < m.layers; ++i) {
        const std::string p = "blk." + std::to_string(i) + ".";
        vec(p + "attn_norm.weight", m.dim, 1.0f);
        matrix(p + "attn_q.weight", q, m.dim);
        matrix(p + "attn_k.weight", kv, m.dim);
        matrix(p + "attn_v.weight", kv, m.dim);
        if (m.bias) {
            vec(p + "attn_q.bias", q, 0.0f);
            vec(p + "attn_k.bias", kv, 0.0f);
            vec(p + "attn_v.bias", kv, 0.0f);
        }
        matrix(p + "attn_output.weight", m.dim, q);
        vec(p + "ffn_norm.weight", m.dim, 1.0f);
        matrix(p + "ffn_gate.weight", m.hidden, m.dim);
        matrix(p + "ffn_up.weight", m.hidden, m.dim);
        matrix(p + "ffn_down.weight", m.dim, m.hidden);
    }
    vec("output_norm.weight", m.dim, 1.0f);
    if (!m.tied) matrix("output.weight", m.vocab, m.dim);
    return w;
}

} // namespace test
