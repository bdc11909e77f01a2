#include "loaders/safetensors.h"

#include <algorithm>
#include <cstring>
#include <set>

#include "common/checked_math.h"
#include "common/error.h"
#include "common/json.h"

namespace llm {

namespace {

constexpr size_t kLengthBytes = 8;
// More dimensions than any weight has; bounds the work on a hostile header.
constexpr size_t kMaxRank = 8;
// Largest index file accepted (real ones are a few hundred KB).
constexpr size_t kMaxIndexBytes = 64u << 20;

uint64_t read_u64_le(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i)
        v = (v << 8) | p[i];
    return v;
}

// The dtypes libllm computes with; every other safetensors dtype (I8, F64,
// F8_E4M3, ...) is UNSUPPORTED.
bool parse_dtype(const std::string &s, DType &out) {
    if (s == "F32")
        out = DType::F32;
    else if (s == "BF16")
        out = DType::BF16;
    else if (s == "F16")
        out = DType::F16;
    else
        return false;
    return true;
}

size_t dtype_size(DType t) {
    return t == DType::F32 ? 4 : 2;
}

// A non-negative integer from the header, or FORMAT.
uint64_t header_uint(const Json &v, const std::string &where, const char *what) {
    if (!v.is_number_unsigned())
        fail(LLM_ERR_FORMAT, where, ": ", what, " must be a non-negative integer, not ", v.dump());
    return v.get<uint64_t>();
}

// One header entry, validated against the data section [0, data_size).
SafeTensor parse_entry(const std::string &name, const Json &entry, const MappedFile &file,
                       const uint8_t *data_start, uint64_t data_size, uint64_t &begin_out) {
    const std::string where = file.path() + ": tensor \"" + name + "\"";
    if (!entry.is_object()) fail(LLM_ERR_FORMAT, where, ": entry is not a JSON object");
    for (const auto &kv : entry.items())
        if (kv.key() != "dtype" && kv.key() != "shape" && kv.key() != "data_offsets")
            fail(LLM_ERR_FORMAT, where, ": unknown field \"", kv.key(), "\"");
    for (const char *key : {"dtype", "shape", "data_offsets"})
        if (!entry.contains(key)) fail(LLM_ERR_FORMAT, where, ": no \"", key, "\"");

    SafeTensor t;
    t.name = name;
    t.file = file.path();
    const Json &dtype = entry["dtype"];
    if (!dtype.is_string()) fail(LLM_ERR_FORMAT, where, ": dtype is not a string");
    if (!parse_dtype(dtype.get<std::string>(), t.dtype))
        fail(LLM_ERR_UNSUPPORTED, where, " has dtype ", dtype.get<std::string>(),
             "; libllm reads F32, BF16 and F16 tensors");

    const Json &shape = entry["shape"];
    if (!shape.is_array()) fail(LLM_ERR_FORMAT, where, ": shape is not an array");
    if (shape.size() > kMaxRank)
        fail(LLM_ERR_FORMAT, where, ": shape has ", shape.size(), " dimensions (at most ", kMaxRank,
             ")");
    uint64_t elements = 1;
    for (const Json &d : shape) {
        uint64_t n = header_uint(d, where, "a shape dimension");
        if (n > static_cast<uint64_t>(INT64_MAX))
            fail(LLM_ERR_FORMAT, where, ": shape dimension ", n, " is too large");
        elements = checked_mul(elements, n, where.c_str());
        t.shape.push_back(static_cast<int64_t>(n));
    }
    const uint64_t nbytes = checked_mul(elements, dtype_size(t.dtype), where.c_str());

    const Json &offsets = entry["data_offsets"];
    if (!offsets.is_array() || offsets.size() != 2)
        fail(LLM_ERR_FORMAT, where, ": data_offsets must be [begin, end]");
    const uint64_t begin = header_uint(offsets[0], where, "data_offsets[0]");
    const uint64_t end = header_uint(offsets[1], where, "data_offsets[1]");
    if (begin > end)
        fail(LLM_ERR_FORMAT, where, ": data_offsets [", begin, ", ", end,
             "] end before they begin");
    if (end > data_size)
        fail(LLM_ERR_TRUNCATED, where, ": data_offsets [", begin, ", ", end,
             "] reach past the end of the file's ", data_size, "-byte data section");
    if (end - begin != nbytes) {
        std::string dims;
        for (int64_t d : t.shape)
            dims += (dims.empty() ? "" : ", ") + std::to_string(d);
        fail(LLM_ERR_FORMAT, where, ": data_offsets [", begin, ", ", end, "] hold ", end - begin,
             " bytes but ", dtype.get<std::string>(), " [", dims, "] needs ", nbytes);
    }
    t.data = data_start + begin;
    t.bytes = static_cast<size_t>(nbytes);
    begin_out = begin;
    return t;
}

// A shard's file name from weight_map: a plain name inside the index's
// folder, never a path that could leave it.
void check_shard_name(const std::string &index_path, const std::string &shard) {
    if (shard.empty() || shard == "." || shard == ".." || shard.find('/') != std::string::npos ||
        shard.find('\\') != std::string::npos || shard.find('\0') != std::string::npos)
        fail(LLM_ERR_FORMAT, index_path, ": weight_map names shard \"", shard,
             "\", which is not a plain file name");
}

} // namespace

bool looks_like_safetensors(const uint8_t *data, size_t size) {
    if (size < kLengthBytes + 1) return false;
    const uint64_t n = read_u64_le(data);
    return n >= 2 && n <= kMaxSafetensorsHeader && data[kLengthBytes] == '{';
}

std::vector<SafeTensor> parse_safetensors(const MappedFile &file) {
    const std::string &path = file.path();
    const size_t size = file.size();
    if (size < kLengthBytes)
        fail(LLM_ERR_TRUNCATED, path, ": ", size,
             " bytes is shorter than the 8-byte safetensors header length");
    const uint64_t header_len = read_u64_le(file.data());
    if (header_len > kMaxSafetensorsHeader)
        fail(LLM_ERR_FORMAT, path, ": safetensors header length ", header_len,
             " is larger than the ", kMaxSafetensorsHeader, " bytes allowed");
    if (header_len > size - kLengthBytes)
        fail(LLM_ERR_TRUNCATED, path, ": safetensors header length ", header_len,
             " reaches past the end of the ", size, "-byte file");
    const char *header = reinterpret_cast<const char *>(file.data()) + kLengthBytes;
    Json j = parse_json(header, header + header_len, path + ": safetensors header");
    if (!j.is_object()) fail(LLM_ERR_FORMAT, path, ": safetensors header is not a JSON object");

    const uint8_t *data_start = file.data() + kLengthBytes + header_len;
    const uint64_t data_size = size - kLengthBytes - header_len;
    std::vector<SafeTensor> tensors;
    std::vector<std::pair<uint64_t, size_t>> ranges; // (begin, index), non-empty tensors only
    for (const auto &kv : j.items()) {
        if (kv.key() == "__metadata__") {
            if (!kv.value().is_object())
                fail(LLM_ERR_FORMAT, path, ": __metadata__ is not a JSON object");
            continue;
        }
        if (kv.key().empty()) fail(LLM_ERR_FORMAT, path, ": a tensor has an empty name");
        uint64_t begin = 0;
        tensors.push_back(parse_entry(kv.key(), kv.value(), file, data_start, data_size, begin));
        if (tensors.back().bytes > 0) ranges.emplace_back(begin, tensors.size() - 1);
    }
    std::sort(ranges.begin(), ranges.end());
    for (size_t i = 1; i < ranges.size(); ++i) {
        const SafeTensor &prev = tensors[ranges[i - 1].second];
        const uint64_t prev_end = ranges[i - 1].first + prev.bytes;
        if (prev_end > ranges[i].first)
            fail(LLM_ERR_FORMAT, path, ": the byte ranges of tensors \"", prev.name, "\" and \"",
                 tensors[ranges[i].second].name, "\" overlap");
    }
    return tensors;
}

SafetensorsSet open_safetensors(const std::string &path, bool use_mmap) {
    SafetensorsSet set;
    set.files.push_back(MappedFile::open(path, use_mmap));
    for (SafeTensor &t : parse_safetensors(*set.files.back()))
        set.tensors.emplace(t.name, std::move(t));
    return set;
}

SafetensorsSet open_safetensors_index(const std::string &index_path, bool use_mmap) {
    Json j = parse_json(read_text_file(index_path, kMaxIndexBytes), index_path);
    if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object())
        fail(LLM_ERR_FORMAT, index_path, ": no \"weight_map\" object");
    const Json &weight_map = j["weight_map"];
    std::map<std::string, std::set<std::string>> by_shard; // shard -> tensor names
    for (const auto &kv : weight_map.items()) {
        if (!kv.value().is_string())
            fail(LLM_ERR_FORMAT, index_path, ": weight_map entry \"", kv.key(),
                 "\" is not a file name");
        const std::string shard = kv.value().get<std::string>();
        check_shard_name(index_path, shard);
        by_shard[shard].insert(kv.key());
    }
    if (by_shard.empty()) fail(LLM_ERR_FORMAT, index_path, ": weight_map is empty");

    const std::string dir = path_dirname(index_path);
    SafetensorsSet set;
    for (const auto &[shard, names] : by_shard) {
        set.files.push_back(MappedFile::open(path_join(dir, shard), use_mmap));
        const MappedFile &file = *set.files.back();
        size_t found = 0;
        for (SafeTensor &t : parse_safetensors(file)) {
            if (!names.count(t.name))
                fail(LLM_ERR_FORMAT, file.path(), ": tensor \"", t.name,
                     "\" is not listed for this shard in ", index_path);
            ++found;
            set.tensors.emplace(t.name, std::move(t));
        }
        if (found != names.size())
            for (const std::string &name : names)
                if (!set.tensors.count(name))
                    fail(LLM_ERR_FORMAT, index_path, ": tensor \"", name, "\" is not in ", shard);
    }
    return set;
}

} // namespace llm
