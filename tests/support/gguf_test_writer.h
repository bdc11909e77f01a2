// Builds GGUF images in memory (the container of ggml's docs/gguf.md,
// version 3 by default, little-endian), for tests and fuzz seeds that need
// small models, valid or deliberately broken. Key-values and tensors are
// public so that a test can edit, reorder or corrupt them before build().
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace test {

// GGUF value types and the ggml tensor types the tests use.
namespace gguf {
enum ValueType : uint32_t {
    U8 = 0,
    I8 = 1,
    U16 = 2,
    I16 = 3,
    U32 = 4,
    I32 = 5,
    F32_VALUE = 6,
    BOOL = 7,
    STRING = 8,
    ARRAY = 9,
    U64 = 10,
    I64 = 11,
    F64 = 12,
};
enum TensorType : uint32_t {
    F32 = 0,
    F16 = 1,
    Q4_0 = 2,
    Q4_1 = 3,
    Q5_0 = 6,
    Q5_1 = 7,
    Q8_0 = 8,
    Q2_K = 10,
    Q4_K = 12,
    Q5_K = 13,
    Q6_K = 14,
    BF16 = 30,
};
// Little-endian encodings of values, as they appear in the file.
std::string u32(uint32_t v);
std::string u64(uint64_t v);
std::string f32(float v);
std::string str(const std::string &s); // u64 length + bytes
// Bytes of a tensor of `ne` values of `type` (its row of ne[0] values must
// be whole blocks).
uint64_t tensor_bytes(uint32_t type, const std::vector<uint64_t> &ne);
} // namespace gguf

struct GgufKv {
    std::string key;
    uint32_t type;
    std::string value; // the encoded value (for ARRAY: element type, count, elements)
};

struct GgufTensor {
    std::string name;
    uint32_t type;
    std::vector<uint64_t> ne; // ne[0] = columns
    std::string data;         // written into the data section
    // The offset written in the tensor info; by default the next aligned
    // position (where `data` is written).
    int64_t offset_override = -1;
};

class GgufWriter {
  public:
    uint32_t version = 3;
    uint64_t alignment = 32; // used for layout; add general.alignment to change it in the file
    // Counts written in the header instead of the real ones (hostile files).
    int64_t tensor_count_override = -1, kv_count_override = -1;
    std::vector<GgufKv> kvs;
    std::vector<GgufTensor> tensors;

    void add_u32(const std::string &key, uint32_t v);
    void add_i32(const std::string &key, int32_t v);
    void add_u64(const std::string &key, uint64_t v);
    void add_f32(const std::string &key, float v);
    void add_f64(const std::string &key, double v);
    void add_bool(const std::string &key, bool v);
    void add_string(const std::string &key, const std::string &v);
    void add_strings(const std::string &key, const std::vector<std::string> &v);
    void add_f32s(const std::string &key, const std::vector<float> &v);
    void add_i32s(const std::string &key, const std::vector<int32_t> &v);
    void add_raw(const std::string &key, uint32_t type, const std::string &value);
    void add_tensor(const std::string &name, uint32_t type, std::vector<uint64_t> ne,
                    std::string data);
    // Removes a key or a tensor (no-op if absent).
    void remove_key(const std::string &key);
    void remove_tensor(const std::string &name);
    GgufKv *kv(const std::string &key);
    GgufTensor *tensor(const std::string &name);

    std::string build() const;
    // Where the data section starts in build()'s image.
    size_t data_offset() const;

  private:
    std::string head() const; // everything before the padding
};

// A tiny complete model: hyper-parameters, a SentencePiece-style vocabulary
// (<unk>, <s>, </s>, then "t3", "t4", ...) and pseudo-random weights
// (matrices of `matrix_type`; norms fp32 near 1). Block types need dim and
// hidden to be multiples of the block (256 for the K types).
struct GgufModelSpec {
    std::string arch = "llama";
    uint32_t dim = 32, hidden = 64, layers = 2, heads = 4, kv_heads = 2, vocab = 40, ctx = 64;
    uint32_t n_tokens = 0; // tokenizer entries; 0 = vocab
    uint32_t matrix_type = gguf::F32;
    uint32_t norm_type = gguf::F32;
    bool tied = true;
    bool bias = false; // blk.N.attn_{q,k,v}.bias (qwen2 needs them)
    uint32_t seed = 1;
};
GgufWriter make_gguf_model(const GgufModelSpec &spec);

// Deterministic pseudo-random fp32 values in [-scale, scale).
std::vector<float> gguf_random_floats(size_t n, uint32_t seed, float scale);

} // namespace test
