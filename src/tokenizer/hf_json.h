// Checked access to the JSON of tokenizer.json / tokenizer_config.json: every
// wrong type or out-of-range value becomes LLM_ERR_FORMAT naming the file and
// the field, so hostile files fail cleanly.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace llm {
namespace hf_json {

using Json = nlohmann::json;

// Parses a whole file's text with llm::parse_json (common/json.h): FORMAT
// on malformed text or a duplicate key.
Json parse(const std::string &text, const std::string &file);

// A field location for error messages, e.g. "tokenizer.json: model.vocab".
struct Where {
    std::string file, field;
    Where operator/(const std::string &key) const;
    Where operator[](size_t index) const;
    std::string str() const { return field.empty() ? file : file + ": " + field; }
};

[[noreturn]] void bad(const Where &w, const std::string &why);

// The member `key` of object v, or nullptr when missing or JSON null.
const Json *member(const Json &v, const char *key);
const Json &require(const Json &v, const char *key, const Where &w);

const Json &as_object(const Json &v, const Where &w);
const Json &as_array(const Json &v, const Where &w);
const std::string &as_string(const Json &v, const Where &w);
bool as_bool(const Json &v, const Where &w);
int64_t as_int(const Json &v, int64_t min, int64_t max, const Where &w);

// Optional members with a default when missing or null.
bool bool_or(const Json &obj, const char *key, bool fallback, const Where &w);
std::string string_or(const Json &obj, const char *key, const std::string &fallback,
                      const Where &w);

} // namespace hf_json
} // namespace llm
