#include "chat/jinja_value.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "chat/jinja_error.h"

namespace llm::jinja {

namespace {
thread_local Arena *current_arena = nullptr;
} // namespace

Arena::Arena(size_t max_string) : previous_(current_arena), max_string_(max_string) {
    current_arena = this;
}
Arena::~Arena() {
    current_arena = previous_;
    // Swap the contents out before they die: destroying them may run
    // destructors that must not find this arena half cleared.
    for (auto &w : lists_)
        if (auto l = w.lock()) List().swap(*l);
    for (auto &w : dicts_)
        if (auto d = w.lock()) {
            std::vector<std::pair<std::string, Value>> items;
            items.swap(d->items);
            d->index.clear();
        }
}
namespace {
// Drops the entries of containers already gone once the registry doubled.
template <typename T>
void remember(std::vector<std::weak_ptr<T>> &v, const std::shared_ptr<T> &p, size_t &mark) {
    if (v.size() >= mark) {
        v.erase(std::remove_if(v.begin(), v.end(), [](const auto &w) { return w.expired(); }),
                v.end());
        mark = std::max<size_t>(1024, 2 * v.size());
    }
    v.push_back(p);
}
} // namespace

void Arena::track(const std::shared_ptr<List> &l) {
    if (current_arena) remember(current_arena->lists_, l, current_arena->lists_mark_);
}
void Arena::track(const std::shared_ptr<Dict> &d) {
    if (current_arena) remember(current_arena->dicts_, d, current_arena->dicts_mark_);
}
size_t Arena::max_string() {
    return current_arena ? current_arena->max_string_ : (8u << 20);
}

Value Value::none() {
    Value v;
    v.type = Type::None;
    return v;
}
Value Value::boolean(bool x) {
    Value v;
    v.type = Type::Bool;
    v.b = x;
    return v;
}
Value Value::integer(int64_t x) {
    Value v;
    v.type = Type::Int;
    v.i = x;
    return v;
}
Value Value::number(double x) {
    Value v;
    v.type = Type::Float;
    v.f = x;
    return v;
}
Value Value::string(std::string x) {
    Value v;
    v.type = Type::String;
    v.s = std::move(x);
    return v;
}
Value Value::make_list(List x) {
    Value v;
    v.type = Type::List;
    v.list = std::shared_ptr<List>(new List(std::move(x)));
    Arena::track(v.list);
    return v;
}
Value Value::make_tuple(List x) {
    Value v = make_list(std::move(x));
    v.tuple = true;
    return v;
}
Value Value::make_dict() {
    Value v;
    v.type = Type::Dict;
    v.dict = std::shared_ptr<Dict>(new Dict());
    Arena::track(v.dict);
    return v;
}
Value Value::make_namespace() {
    Value v = make_dict();
    v.type = Type::Namespace;
    return v;
}
Value Value::callable(Function f) {
    Value v;
    v.type = Type::Callable;
    v.fn = std::make_shared<Function>(std::move(f));
    return v;
}

double Value::as_double() const {
    switch (type) {
    case Type::Int: return static_cast<double>(i);
    case Type::Float: return f;
    case Type::Bool: return b ? 1.0 : 0.0;
    default: return 0;
    }
}
int64_t Value::as_int() const {
    if (type == Type::Bool) return b ? 1 : 0;
    if (type != Type::Float) return i;
    // Truncated, saturating (NaN is 0): a float argument where an int is due.
    if (std::isnan(f)) return 0;
    if (f >= 9.2e18) return INT64_MAX;
    if (f <= -9.2e18) return INT64_MIN;
    return static_cast<int64_t>(f);
}

const Value *Dict::find(const std::string &key) const {
    auto it = index.find(key);
    return it == index.end() ? nullptr : &items[it->second].second;
}
void Dict::set(const std::string &key, Value v) {
    auto it = index.find(key);
    if (it != index.end()) {
        items[it->second].second = std::move(v);
        return;
    }
    index.emplace(key, items.size());
    items.emplace_back(key, std::move(v));
}

const Value *CallArgs::kwarg(const char *name) const {
    for (const auto &kv : kw)
        if (kv.first == name) return &kv.second;
    return nullptr;
}
const Value *CallArgs::get(size_t at, const char *name) const {
    if (at < pos.size()) return &pos[at];
    return name ? kwarg(name) : nullptr;
}

const char *type_name(const Value &v) {
    switch (v.type) {
    case Type::Undefined: return "undefined";
    case Type::None: return "none";
    case Type::Bool: return "bool";
    case Type::Int: return "int";
    case Type::Float: return "float";
    case Type::String: return "string";
    case Type::List: return v.tuple ? "tuple" : "list";
    case Type::Dict: return "dict";
    case Type::Namespace: return "namespace";
    case Type::Callable: return "callable";
    }
    return "?";
}

bool truthy(const Value &v) {
    switch (v.type) {
    case Type::Undefined:
    case Type::None: return false;
    case Type::Bool: return v.b;
    case Type::Int: return v.i != 0;
    case Type::Float: return v.f != 0;
    case Type::String: return !v.s.empty();
    case Type::List: return !v.list->empty();
    case Type::Dict: return v.dict->size() > 0;
    case Type::Namespace:
    case Type::Callable: return true;
    }
    return false;
}

std::string float_repr(double d) {
    if (std::isnan(d)) return "nan";
    if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
    if (d == 0) return std::signbit(d) ? "-0.0" : "0.0";
    // Shortest digits that read back as d.
    char buf[64];
    int prec = 1;
    for (; prec <= 17; ++prec) {
        std::snprintf(buf, sizeof buf, "%.*e", prec - 1, d);
        if (std::strtod(buf, nullptr) == d) break;
    }
    std::string m(buf);
    const size_t e = m.find('e');
    const int exp = std::atoi(m.c_str() + e + 1);
    std::string digits;
    bool neg = false;
    for (size_t k = 0; k < e; ++k) {
        if (m[k] == '-') neg = true;
        if (m[k] >= '0' && m[k] <= '9') digits += m[k];
    }
    while (digits.size() > 1 && digits.back() == '0')
        digits.pop_back();
    std::string out = neg ? "-" : "";
    if (exp >= -4 && exp < 16) {
        if (exp < 0) {
            out += "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
        } else if (static_cast<size_t>(exp) + 1 >= digits.size()) {
            out += digits + std::string(static_cast<size_t>(exp) + 1 - digits.size(), '0') + ".0";
        } else {
            out += digits.substr(0, static_cast<size_t>(exp) + 1) + "." +
                   digits.substr(static_cast<size_t>(exp) + 1);
        }
        return out;
    }
    out += digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char eb[16];
    std::snprintf(eb, sizeof eb, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    return out + eb;
}

namespace {

std::string string_repr(const std::string &s) {
    const bool has_single = s.find('\'') != std::string::npos;
    const bool has_double = s.find('"') != std::string::npos;
    const char q = has_single && !has_double ? '"' : '\'';
    std::string out(1, q);
    for (char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (c == q || c == '\\') {
            out += '\\';
            out += c;
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c == '\t') {
            out += "\\t";
        } else if (u < 0x20 || u == 0x7f) {
            char b[8];
            std::snprintf(b, sizeof b, "\\x%02x", u);
            out += b;
        } else {
            out += c;
        }
    }
    out += q;
    return out;
}

} // namespace

namespace {

void str_into(std::string &out, const Value &v, int depth, bool repr);

void repr_into(std::string &out, const Value &v, int depth) {
    if (v.type == Type::String)
        out += string_repr(v.s);
    else
        str_into(out, v, depth, true);
}

void str_into(std::string &out, const Value &v, int depth, bool) {
    if (depth > 256) fail_at(0, "value nested too deeply to print");
    if (out.size() > Arena::max_string()) fail_at(0, "printed value too large");
    switch (v.type) {
    case Type::List: {
        out += v.tuple ? '(' : '[';
        for (size_t k = 0; k < v.list->size(); ++k) {
            if (k) out += ", ";
            repr_into(out, (*v.list)[k], depth + 1);
            if (out.size() > Arena::max_string()) fail_at(0, "printed value too large");
        }
        if (v.tuple && v.list->size() == 1) out += ',';
        out += v.tuple ? ')' : ']';
        return;
    }
    case Type::Dict:
    case Type::Namespace: {
        out += v.type == Type::Namespace ? "<Namespace {" : "{";
        bool first = true;
        for (const auto &[k, x] : v.dict->items) {
            if (!first) out += ", ";
            first = false;
            out += string_repr(k) + ": ";
            repr_into(out, x, depth + 1);
            if (out.size() > Arena::max_string()) fail_at(0, "printed value too large");
        }
        out += v.type == Type::Namespace ? "}>" : "}";
        return;
    }
    default: out += to_str(v);
    }
}

} // namespace

std::string to_repr(const Value &v) {
    if (v.type == Type::String) return string_repr(v.s);
    if (v.type == Type::Undefined) return "";
    return to_str(v);
}

std::string to_str(const Value &v) {
    switch (v.type) {
    case Type::Undefined: return "";
    case Type::None: return "None";
    case Type::Bool: return v.b ? "True" : "False";
    case Type::Int: return std::to_string(v.i);
    case Type::Float: return float_repr(v.f);
    case Type::String: return v.s;
    case Type::List:
    case Type::Dict:
    case Type::Namespace: {
        std::string out;
        str_into(out, v, 0, false);
        return out;
    }
    case Type::Callable: return "<function>";
    }
    return "";
}

namespace {

void json_string(std::string &out, const std::string &s, bool ascii) {
    out += '"';
    for (size_t k = 0; k < s.size(); ++k) {
        const char c = s[k];
        const auto u = static_cast<unsigned char>(c);
        switch (c) {
        case '"': out += "\\\""; continue;
        case '\\': out += "\\\\"; continue;
        case '\n': out += "\\n"; continue;
        case '\r': out += "\\r"; continue;
        case '\t': out += "\\t"; continue;
        case '\b': out += "\\b"; continue;
        case '\f': out += "\\f"; continue;
        default: break;
        }
        char b[16];
        if (u < 0x20 || (ascii && u == 0x7f)) {
            std::snprintf(b, sizeof b, "\\u%04x", u);
            out += b;
        } else if (ascii && u >= 0x80) {
            // Decode one code point; escape it as UTF-16 units.
            size_t len = (u & 0xE0) == 0xC0   ? 2
                         : (u & 0xF0) == 0xE0 ? 3
                         : (u & 0xF8) == 0xF0 ? 4
                                              : 1;
            if (k + len > s.size()) len = 1;
            uint32_t cp = len == 1   ? u
                          : len == 2 ? (u & 0x1Fu)
                          : len == 3 ? (u & 0x0Fu)
                                     : (u & 0x07u);
            for (size_t j = 1; j < len; ++j)
                cp = (cp << 6) | (static_cast<unsigned char>(s[k + j]) & 0x3Fu);
            k += len - 1;
            if (cp >= 0x10000) {
                cp -= 0x10000;
                std::snprintf(b, sizeof b, "\\u%04x\\u%04x", 0xD800 + (cp >> 10),
                              0xDC00 + (cp & 0x3FF));
            } else {
                std::snprintf(b, sizeof b, "\\u%04x", cp);
            }
            out += b;
        } else {
            out += c;
        }
    }
    out += '"';
}

void json_value(std::string &out, const Value &v, const JsonOptions &o, int depth,
                size_t max_bytes) {
    if (out.size() > max_bytes) fail_at(0, "tojson output too large");
    if (depth > 512) fail_at(0, "tojson: nesting too deep");
    const std::string item_sep = o.has_separators ? o.item_sep : o.indent >= 0 ? "," : ", ";
    const std::string key_sep = o.has_separators ? o.key_sep : ": ";
    auto newline = [&](int level) {
        if (o.indent < 0) return;
        out += '\n';
        out.append(static_cast<size_t>(o.indent) * static_cast<size_t>(level), ' ');
    };
    switch (v.type) {
    case Type::Undefined:
    case Type::None: out += "null"; return;
    case Type::Bool: out += v.b ? "true" : "false"; return;
    case Type::Int: out += std::to_string(v.i); return;
    case Type::Float:
        if (std::isnan(v.f))
            out += "NaN";
        else if (std::isinf(v.f))
            out += v.f < 0 ? "-Infinity" : "Infinity";
        else
            out += float_repr(v.f);
        return;
    case Type::String: json_string(out, v.s, o.ensure_ascii); return;
    case Type::List: {
        if (v.list->empty()) {
            out += "[]";
            return;
        }
        out += '[';
        for (size_t k = 0; k < v.list->size(); ++k) {
            if (k) out += item_sep;
            newline(depth + 1);
            json_value(out, (*v.list)[k], o, depth + 1, max_bytes);
        }
        newline(depth);
        out += ']';
        return;
    }
    case Type::Dict:
    case Type::Namespace: {
        if (v.dict->size() == 0) {
            out += "{}";
            return;
        }
        std::vector<const std::pair<std::string, Value> *> items;
        for (const auto &kv : v.dict->items)
            items.push_back(&kv);
        if (o.sort_keys)
            std::stable_sort(items.begin(), items.end(),
                             [](auto *a, auto *b) { return a->first < b->first; });
        out += '{';
        bool first = true;
        for (const auto *kv : items) {
            if (!first) out += item_sep;
            first = false;
            newline(depth + 1);
            json_string(out, kv->first, o.ensure_ascii);
            out += key_sep;
            json_value(out, kv->second, o, depth + 1, max_bytes);
        }
        newline(depth);
        out += '}';
        return;
    }
    case Type::Callable: fail_at(0, "tojson: a function is not JSON serializable");
    }
}

} // namespace

std::string to_json(const Value &v, const JsonOptions &opt, size_t max_bytes) {
    std::string out;
    json_value(out, v, opt, 0, max_bytes);
    if (out.size() > max_bytes) fail_at(0, "tojson output too large");
    return out;
}

namespace {
bool equals_at(const Value &a, const Value &b, int depth);
int compare_at(const Value &a, const Value &b, int line, int depth);
} // namespace

bool equals(const Value &a, const Value &b) {
    return equals_at(a, b, 0);
}
int compare(const Value &a, const Value &b, int line) {
    return compare_at(a, b, line, 0);
}

namespace {

bool equals_at(const Value &a, const Value &b, int depth) {
    if (depth > 256) fail_at(0, "values nested too deeply to compare");
    if (a.is_numeric() && b.is_numeric()) {
        if (a.type == Type::Float || b.type == Type::Float) return a.as_double() == b.as_double();
        return a.as_int() == b.as_int();
    }
    if (a.type != b.type) return false;
    switch (a.type) {
    case Type::Undefined:
    case Type::None: return true;
    case Type::String: return a.s == b.s;
    case Type::List: {
        if (a.list == b.list) return true;
        if (a.list->size() != b.list->size()) return false;
        for (size_t k = 0; k < a.list->size(); ++k)
            if (!equals_at((*a.list)[k], (*b.list)[k], depth + 1)) return false;
        return true;
    }
    case Type::Dict: {
        if (a.dict == b.dict) return true;
        if (a.dict->size() != b.dict->size()) return false;
        for (const auto &[k, x] : a.dict->items) {
            const Value *y = b.dict->find(k);
            if (!y || !equals_at(x, *y, depth + 1)) return false;
        }
        return true;
    }
    case Type::Namespace: return a.dict == b.dict;
    case Type::Callable: return a.fn == b.fn;
    default: return false;
    }
}

int compare_at(const Value &a, const Value &b, int line, int depth) {
    if (depth > 256) fail_at(line, "values nested too deeply to compare");
    if (a.is_numeric() && b.is_numeric()) {
        if (a.type == Type::Float || b.type == Type::Float) {
            const double x = a.as_double(), y = b.as_double();
            return x < y ? -1 : x > y ? 1 : 0;
        }
        const int64_t x = a.as_int(), y = b.as_int();
        return x < y ? -1 : x > y ? 1 : 0;
    }
    if (a.is_string() && b.is_string()) return a.s < b.s ? -1 : a.s > b.s ? 1 : 0;
    if (a.is_list() && b.is_list()) {
        const size_t n = std::min(a.list->size(), b.list->size());
        for (size_t k = 0; k < n; ++k) {
            const int c = compare_at((*a.list)[k], (*b.list)[k], line, depth + 1);
            if (c) return c;
        }
        return a.list->size() < b.list->size() ? -1 : a.list->size() > b.list->size() ? 1 : 0;
    }
    fail_at(line, "cannot compare ", type_name(a), " with ", type_name(b));
}

} // namespace

Value from_json(const nlohmann::ordered_json &j) {
    switch (j.type()) {
    case nlohmann::ordered_json::value_t::null: return Value::none();
    case nlohmann::ordered_json::value_t::boolean: return Value::boolean(j.get<bool>());
    case nlohmann::ordered_json::value_t::number_integer: return Value::integer(j.get<int64_t>());
    case nlohmann::ordered_json::value_t::number_unsigned: {
        const auto u = j.get<uint64_t>();
        if (u > static_cast<uint64_t>(INT64_MAX)) return Value::number(static_cast<double>(u));
        return Value::integer(static_cast<int64_t>(u));
    }
    case nlohmann::ordered_json::value_t::number_float: return Value::number(j.get<double>());
    case nlohmann::ordered_json::value_t::string: return Value::string(j.get<std::string>());
    case nlohmann::ordered_json::value_t::array: {
        List l;
        l.reserve(j.size());
        for (const auto &x : j)
            l.push_back(from_json(x));
        return Value::make_list(std::move(l));
    }
    case nlohmann::ordered_json::value_t::object: {
        Value d = Value::make_dict();
        for (auto it = j.begin(); it != j.end(); ++it)
            d.dict->set(it.key(), from_json(it.value()));
        return d;
    }
    default: return Value();
    }
}

std::vector<uint32_t> code_points(const std::string &s) {
    std::vector<uint32_t> out;
    out.reserve(s.size());
    for (size_t k = 0; k < s.size();) {
        const auto u = static_cast<unsigned char>(s[k]);
        size_t len = (u & 0x80) == 0      ? 1
                     : (u & 0xE0) == 0xC0 ? 2
                     : (u & 0xF0) == 0xE0 ? 3
                     : (u & 0xF8) == 0xF0 ? 4
                                          : 1;
        if (k + len > s.size()) len = 1;
        bool ok = true;
        for (size_t j = 1; j < len; ++j)
            ok = ok && (static_cast<unsigned char>(s[k + j]) & 0xC0) == 0x80;
        if (!ok) len = 1;
        uint32_t cp = len == 1 ? u : len == 2 ? (u & 0x1Fu) : len == 3 ? (u & 0x0Fu) : (u & 0x07u);
        for (size_t j = 1; j < len; ++j)
            cp = (cp << 6) | (static_cast<unsigned char>(s[k + j]) & 0x3Fu);
        // Invalid bytes survive a round trip as themselves (tagged).
        out.push_back(len == 1 && u >= 0x80 ? 0x80000000u | u : cp);
        k += len;
    }
    return out;
}

void append_utf8(std::string &out, uint32_t cp) {
    if (cp & 0x80000000u) {
        out += static_cast<char>(cp & 0xFF);
    } else if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

std::string from_code_points(const uint32_t *cp, size_t n) {
    std::string out;
    out.reserve(n);
    for (size_t k = 0; k < n; ++k)
        append_utf8(out, cp[k]);
    return out;
}

} // namespace llm::jinja
