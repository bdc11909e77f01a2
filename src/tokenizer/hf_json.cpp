#include "tokenizer/hf_json.h"

#include "common/error.h"
#include "common/json.h"

namespace llm {
namespace hf_json {

Json parse(const std::string &text, const std::string &file) {
    return parse_json(text, file);
}

Where Where::operator/(const std::string &key) const {
    return {file, field.empty() ? key : field + "." + key};
}

Where Where::operator[](size_t index) const {
    return {file, field + "[" + std::to_string(index) + "]"};
}

void bad(const Where &w, const std::string &why) {
    fail(LLM_ERR_FORMAT, w.str(), ": ", why);
}

const Json *member(const Json &v, const char *key) {
    if (!v.is_object()) return nullptr;
    auto it = v.find(key);
    return it == v.end() || it->is_null() ? nullptr : &*it;
}

const Json &require(const Json &v, const char *key, const Where &w) {
    const Json *m = member(v, key);
    if (!m) bad(w / key, "missing");
    return *m;
}

const Json &as_object(const Json &v, const Where &w) {
    if (!v.is_object()) bad(w, "expected an object");
    return v;
}

const Json &as_array(const Json &v, const Where &w) {
    if (!v.is_array()) bad(w, "expected an array");
    return v;
}

const std::string &as_string(const Json &v, const Where &w) {
    if (!v.is_string()) bad(w, "expected a string");
    return v.get_ref<const std::string &>();
}

bool as_bool(const Json &v, const Where &w) {
    if (!v.is_boolean()) bad(w, "expected true or false");
    return v.get<bool>();
}

int64_t as_int(const Json &v, int64_t min, int64_t max, const Where &w) {
    bool ok = false;
    int64_t x = 0;
    if (v.is_number_unsigned()) {
        uint64_t u = v.get<uint64_t>();
        ok = u <= static_cast<uint64_t>(max);
        x = static_cast<int64_t>(u);
    } else if (v.is_number_integer()) {
        x = v.get<int64_t>();
        ok = true;
    } else {
        bad(w, "expected an integer");
    }
    if (!ok || x < min || x > max)
        bad(w, "integer out of range [" + std::to_string(min) + ", " + std::to_string(max) + "]");
    return x;
}

bool bool_or(const Json &obj, const char *key, bool fallback, const Where &w) {
    const Json *m = member(obj, key);
    return m ? as_bool(*m, w / key) : fallback;
}

std::string string_or(const Json &obj, const char *key, const std::string &fallback,
                      const Where &w) {
    const Json *m = member(obj, key);
    return m ? as_string(*m, w / key) : fallback;
}

} // namespace hf_json
} // namespace llm
