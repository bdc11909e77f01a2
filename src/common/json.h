// JSON from model folders (config.json, safetensors headers, index files) is
// untrusted: parse it with nlohmann-json, turn every parser or type error into
// an llm::Error naming the file, and refuse duplicate keys (a second value for
// the same tensor or setting would otherwise silently win).
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace llm {

using Json = nlohmann::json;

// FORMAT "<what>: invalid JSON: ..." on malformed text or a duplicate key.
Json parse_json(const char *begin, const char *end, const std::string &what);
inline Json parse_json(const std::string &text, const std::string &what) {
    return parse_json(text.data(), text.data() + text.size(), what);
}

} // namespace llm
