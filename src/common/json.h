// JSON from model folders (config.json, safetensors headers, index files) is
// untrusted: parse it with nlohmann-json, turn every parser or type error into
// an llm::Error naming the file, and refuse duplicate keys (a second value for
// the same tensor or setting would otherwise silently win).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace llm {

using Json = nlohmann::json;

// FORMAT "<what>: invalid JSON: ..." on malformed text or a duplicate key.
Json parse_json(const char *begin, const char *end, const std::string &what);
inline Json parse_json(const std::string &text, const std::string &what) {
    return parse_json(text.data(), text.data() + text.size(), what);
}

// nlohmann-json SAX events (Json::sax_parse) building the tree Json::parse
// builds, noting the first duplicate key and the parse error: parse_json's
// reader, and a base for readers that send some values elsewhere.
// (nlohmann's own callback parser rescans an object's members at the end of
// each member object: quadratic on tokenizer_config.json's 6k added tokens.)
class JsonTreeBuilder {
  public:
    Json root;
    std::string duplicate; // the first repeated key, "" if none
    std::string error;     // the parser's message, "" if none

    bool null() { return add(Json(nullptr)); }
    bool boolean(bool v) { return add(Json(v)); }
    bool number_integer(Json::number_integer_t v) { return add(Json(v)); }
    bool number_unsigned(Json::number_unsigned_t v) { return add(Json(v)); }
    bool number_float(Json::number_float_t v, const std::string &) { return add(Json(v)); }
    bool string(std::string &s) { return add(Json(std::move(s))); }
    bool binary(Json::binary_t &) { return false; } // not in JSON text
    bool start_object(size_t) { return open(Json::value_t::object) != nullptr; }
    bool key(std::string &k);
    bool end_object() { return close(); }
    bool start_array(size_t) { return open(Json::value_t::array) != nullptr; }
    bool end_array() { return close(); }
    bool parse_error(size_t, const std::string &, const Json::exception &e) {
        error = e.what();
        return false;
    }

    // Throws FORMAT "<what>: invalid JSON: ..." for error or duplicate.
    void check(const std::string &what) const;

  protected:
    // Puts v where the parse is (the root, an array's end, the last key's
    // value); returns it.
    Json *add(Json &&v);
    // add() for an object or array that the following events fill.
    Json *open(Json::value_t type);
    bool close() {
        stack_.pop_back();
        return true;
    }
    // The innermost open object or array; nullptr at the top level.
    Json *innermost() const { return stack_.empty() ? nullptr : stack_.back(); }
    size_t depth() const { return stack_.size(); }

  private:
    std::vector<Json *> stack_;
    Json *slot_ = nullptr; // the value of the last key
};

} // namespace llm
