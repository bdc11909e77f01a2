// .safetensors files: a little-endian u64 header length, a JSON header
// mapping tensor names to {dtype, shape, data_offsets}, then the raw data.
// Also the sharded layout: model.safetensors.index.json's weight_map naming
// the shard file of every tensor. Files are memory-mapped; every entry is
// validated (dtype, shape, byte range inside the file, no overlaps) before
// a pointer into the data is handed out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/mapped_file.h"
#include "model/tensor.h"

namespace llm {

// Largest JSON header accepted (real ones are well under 1 MB).
constexpr uint64_t kMaxSafetensorsHeader = 100u << 20;

struct SafeTensor {
    std::string name;
    DType dtype = DType::F32;   // F32, BF16 or F16
    std::vector<int64_t> shape; // empty for a scalar
    const uint8_t *data = nullptr;
    size_t bytes = 0;
    std::string file; // path of the file holding it (for messages)
};

// The tensors of one model, from one file or from the shards of an index.
struct SafetensorsSet {
    std::vector<std::shared_ptr<MappedFile>> files;
    std::map<std::string, SafeTensor> tensors;
};

// True if the bytes start like a safetensors file: a u64 header length no
// larger than kMaxSafetensorsHeader, then '{'.
bool looks_like_safetensors(const uint8_t *data, size_t size);

// Parses and validates one file's header. Throws llm::Error: TRUNCATED if the
// file is shorter than its header says, FORMAT for malformed JSON or entries,
// UNSUPPORTED for dtypes other than F32/BF16/F16.
std::vector<SafeTensor> parse_safetensors(const MappedFile &file);

// One .safetensors file.
SafetensorsSet open_safetensors(const std::string &path, bool use_mmap);
// model.safetensors.index.json and the shards it names (in its folder).
SafetensorsSet open_safetensors_index(const std::string &index_path, bool use_mmap);

} // namespace llm
