// Values of the Jinja interpreter, with Python's semantics (what transformers
// renders chat templates with): undefined, none, bool, int (64-bit, overflow
// is an error), float, string (UTF-8), list (and tuple), dict (insertion
// ordered), namespace and callables. Lists, dicts and namespaces are shared by
// reference, as Python objects are.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace llm::jinja {

enum class Type { Undefined, None, Bool, Int, Float, String, List, Dict, Namespace, Callable };

struct Value;
using List = std::vector<Value>;
struct Dict;
struct CallArgs;
using Function = std::function<Value(CallArgs &)>;

struct Value {
    Type type = Type::Undefined;
    bool b = false;
    bool tuple = false; // a List written as a tuple (printed with parentheses)
    int64_t i = 0;
    double f = 0;
    std::string s;
    std::shared_ptr<List> list;
    std::shared_ptr<Dict> dict; // Dict and Namespace
    std::shared_ptr<Function> fn;

    Value() = default;
    static Value none();
    static Value boolean(bool v);
    static Value integer(int64_t v);
    static Value number(double v);
    static Value string(std::string v);
    static Value make_list(List v = {});
    static Value make_tuple(List v);
    static Value make_dict();
    static Value make_namespace();
    static Value callable(Function f);

    bool is_undefined() const { return type == Type::Undefined; }
    bool is_none() const { return type == Type::None; }
    bool is_string() const { return type == Type::String; }
    bool is_list() const { return type == Type::List; }
    bool is_dict() const { return type == Type::Dict; }
    bool is_number() const { return type == Type::Int || type == Type::Float; }
    // Bools count as numbers in arithmetic and comparisons (Python).
    bool is_numeric() const { return is_number() || type == Type::Bool; }
    double as_double() const;
    int64_t as_int() const; // Int or Bool
};

struct Dict {
    std::vector<std::pair<std::string, Value>> items;
    std::unordered_map<std::string, size_t> index;

    const Value *find(const std::string &key) const;
    void set(const std::string &key, Value v);
    size_t size() const { return items.size(); }
};

struct CallArgs {
    std::vector<Value> pos;
    std::vector<std::pair<std::string, Value>> kw;
    int line = 0;

    // The argument at position `at` or named `name` (nullptr when absent).
    const Value *get(size_t at, const char *name) const;
    const Value *kwarg(const char *name) const;
};

const char *type_name(const Value &v);
bool truthy(const Value &v);
// Python's str(): what {{ v }} prints (undefined prints nothing).
std::string to_str(const Value &v);
// Python's repr(), used inside printed lists and dicts.
std::string to_repr(const Value &v);
// Python's repr of a float ("1.0", "0.1", "1e-07", "inf").
std::string float_repr(double d);

struct JsonOptions {
    int indent = -1; // < 0: one line
    bool ensure_ascii = false;
    bool sort_keys = false;
    std::string item_sep; // empty: Python's default for the indent
    std::string key_sep;
    bool has_separators = false;
};
// json.dumps as transformers' tojson filter calls it. Throws past max_bytes.
std::string to_json(const Value &v, const JsonOptions &opt, size_t max_bytes);

// Python ==, and ordering (<) for numbers, strings and lists; compare throws
// for values Python cannot order.
bool equals(const Value &a, const Value &b);
int compare(const Value &a, const Value &b, int line);

// Every list and dict made while an Arena is alive on this thread is
// emptied when it ends: templates can build reference cycles (a list that
// holds itself, a macro stored in the scope it closes over), which shared
// pointers alone would leak. Also caps the size of printed values.
class Arena {
  public:
    explicit Arena(size_t max_string);
    ~Arena();
    Arena(const Arena &) = delete;
    Arena &operator=(const Arena &) = delete;

    static void track(const std::shared_ptr<List> &l);
    static void track(const std::shared_ptr<Dict> &d);
    static size_t max_string();

  private:
    Arena *previous_;
    size_t max_string_;
    std::vector<std::weak_ptr<List>> lists_;
    std::vector<std::weak_ptr<Dict>> dicts_;
    size_t lists_mark_ = 1024, dicts_mark_ = 1024;
};

// Converts parsed JSON (object keys in document order).
Value from_json(const nlohmann::ordered_json &j);

// Unicode code points of a UTF-8 string, and back (for indexing, slicing and
// lengths in code points, as Python counts).
std::vector<uint32_t> code_points(const std::string &s);
std::string from_code_points(const uint32_t *cp, size_t n);
void append_utf8(std::string &out, uint32_t cp);

} // namespace llm::jinja
