// GGUF containers (ggml's docs/gguf.md), versions 2 and 3, little-endian:
//
//   "GGUF", u32 version, u64 tensor_count, u64 kv_count,
//   kv_count x (string key, u32 value type, value),
//   tensor_count x (string name, u32 n_dims, u64 ne[n_dims], u32 ggml type,
//                   u64 offset into the data section),
//   padding to general.alignment (default 32), the data section.
//
// Strings are a u64 byte length then the bytes (no terminator); an array
// value is a u32 element type, a u64 count, then the elements (arrays nest).
// ne[0] is the fastest-varying dimension (a matrix's columns).
//
// Parsing only reads and validates: every count, length, dimension and
// offset is checked against the bytes that remain and against the limits
// below before it is used, so a lying file is an llm::Error, never a crash,
// a hang or a giant allocation. Arrays are not decoded at parse time; the
// accessors decode the few the loader needs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/tensor.h"

namespace llm {

// Limits far above any real file, below any allocation that could hurt.
struct GgufLimits {
    static constexpr uint64_t key_bytes = 1 << 16;
    static constexpr uint64_t tensor_name_bytes = 64; // the spec's limit
    static constexpr uint64_t string_bytes = 1 << 26; // chat templates are a few KB
    static constexpr uint64_t array_count = 1 << 26;  // vocabularies are < 1M
    static constexpr uint64_t kv_count = 1 << 20;
    static constexpr uint64_t tensor_count = 1 << 20;
    static constexpr uint32_t dims = 4;        // GGML_MAX_DIMS
    static constexpr uint32_t array_depth = 8; // arrays of arrays of ...
    static constexpr uint64_t alignment = 1 << 20;
};

// Value types (the spec's gguf_metadata_value_type).
enum class GgufType : uint32_t {
    U8 = 0,
    I8 = 1,
    U16 = 2,
    I16 = 3,
    U32 = 4,
    I32 = 5,
    F32 = 6,
    BOOL = 7,
    STRING = 8,
    ARRAY = 9,
    U64 = 10,
    I64 = 11,
    F64 = 12,
};

const char *gguf_type_name(GgufType t);

// ggml tensor type ids (ggml.h's enum ggml_type) that libllm reads.
namespace ggml_type {
constexpr uint32_t F32 = 0, F16 = 1, Q4_0 = 2, Q4_1 = 3, Q5_0 = 6, Q5_1 = 7, Q8_0 = 8, Q4_K = 12,
                   Q5_K = 13, Q6_K = 14, BF16 = 30;
}
// "q2_K", "iq4_xs", ... or "type N" for ids ggml does not define.
std::string ggml_type_name(uint32_t type);
// The DType of a ggml type libllm reads (Q8_0 maps to DType::Q8_0, whose
// row layout differs from the file's: the loader repacks it); false for
// every other type.
bool ggml_type_dtype(uint32_t type, DType &out);

struct GgufValue {
    GgufType type = GgufType::U8;
    uint64_t uint_value = 0; // U8, U16, U32, U64, BOOL
    int64_t int_value = 0;   // I8, I16, I32, I64
    double float_value = 0;  // F32, F64
    std::string string_value;
    // ARRAY: the element type, the element count and where the first
    // element starts in the file (validated; decoded by GgufFile's readers).
    GgufType array_type = GgufType::U8;
    uint64_t array_count = 0;
    size_t array_offset = 0;

    bool is_integer() const;
    bool is_number() const; // integer or float
};

struct GgufTensorInfo {
    std::string name;
    std::vector<uint64_t> ne; // ne[0] = columns (fastest), 1..4 dimensions
    uint32_t type = 0;        // ggml type id
    uint64_t offset = 0;      // in the data section
    // For the types libllm reads: the tensor's bytes, inside the file.
    // nullptr (and 0) for other types, whose size is not computed.
    const uint8_t *data = nullptr;
    uint64_t bytes = 0;

    // The number of dimensions without trailing 1s (a [n, 1] tensor is 1-D).
    uint32_t rank() const;
};

struct GgufFile {
    std::string name; // the path, for messages
    const uint8_t *bytes = nullptr;
    size_t size = 0;
    uint32_t version = 0;
    uint64_t alignment = 32;
    uint64_t data_offset = 0;                           // where the data section starts in the file
    std::vector<std::pair<std::string, GgufValue>> kvs; // in file order
    std::vector<GgufTensorInfo> tensors;                // in file order

    const GgufValue *find(const std::string &key) const;
    const GgufTensorInfo *find_tensor(const std::string &name) const;

    // Typed reads of a key; FORMAT naming the key if its type does not fit,
    // BAD_DIMENSIONS if an integer does not fit the result.
    std::string get_string(const std::string &key) const;
    int64_t get_int(const std::string &key) const;  // any integer type
    double get_float(const std::string &key) const; // any number type
    bool get_bool(const std::string &key) const;
    // Arrays: strings; any number type as float; any integer type within
    // int32 as int32.
    std::vector<std::string> get_string_array(const std::string &key) const;
    std::vector<float> get_float_array(const std::string &key) const;
    std::vector<int32_t> get_int32_array(const std::string &key) const;

    std::map<std::string, size_t> key_index;
    std::map<std::string, size_t> tensor_index;
};

// True if the bytes start with the magic "GGUF".
bool looks_like_gguf(const uint8_t *data, size_t size);

// Parses and validates a whole GGUF image of `size` bytes (`name` names it
// in messages). The result points into `data`. Throws llm::Error:
// TRUNCATED when a field or tensor reaches past the end, FORMAT for a wrong
// magic, unknown value types, duplicate keys or tensor names, misaligned
// offsets, overlapping tensors, limits exceeded; BAD_DIMENSIONS for sizes
// that overflow or rows that are not whole blocks; UNSUPPORTED for other
// versions and big-endian files.
GgufFile parse_gguf(const uint8_t *data, size_t size, const std::string &name);

} // namespace llm
