#include "chat/jinja_builtins.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "chat/jinja_lexer.h"

namespace llm::jinja {

namespace {

bool is_ascii_upper(char c) {
    return c >= 'A' && c <= 'Z';
}
bool is_ascii_lower(char c) {
    return c >= 'a' && c <= 'z';
}
char up(char c) {
    return is_ascii_lower(c) ? static_cast<char>(c - 32) : c;
}
char down(char c) {
    return is_ascii_upper(c) ? static_cast<char>(c + 32) : c;
}

std::string upper(std::string s) {
    for (char &c : s)
        c = up(c);
    return s;
}
std::string lower(std::string s) {
    for (char &c : s)
        c = down(c);
    return s;
}
// Python's str.title(), for ASCII letters.
std::string title(std::string s) {
    bool prev_cased = false;
    for (char &c : s) {
        const bool cased = is_ascii_upper(c) || is_ascii_lower(c);
        c = cased ? (prev_cased ? down(c) : up(c)) : c;
        prev_cased = cased;
    }
    return s;
}
std::string capitalize(const std::string &s) {
    std::string out = lower(s);
    if (!out.empty()) out[0] = up(out[0]);
    return out;
}

// Python's str.strip family: whitespace, or the code points of `chars`.
std::string strip(const std::string &s, const Value *chars, bool left, bool right) {
    if (!chars || chars->is_none() || chars->is_undefined()) {
        size_t b = left ? leading_whitespace(s) : 0;
        size_t e = s.size();
        if (right && b < e) e -= trailing_whitespace(std::string_view(s).substr(b));
        return s.substr(b, e - b);
    }
    const auto set = code_points(chars->s);
    auto cps = code_points(s);
    size_t b = 0, e = cps.size();
    auto in = [&](uint32_t c) { return std::find(set.begin(), set.end(), c) != set.end(); };
    if (left)
        while (b < e && in(cps[b]))
            ++b;
    if (right)
        while (e > b && in(cps[e - 1]))
            --e;
    return from_code_points(cps.data() + b, e - b);
}

std::string replace(const std::string &s, const std::string &old, const std::string &with,
                    int64_t count, Budget &budget, int line) {
    std::string out;
    if (old.empty()) {
        // Python inserts `with` between code points and at both ends.
        const auto cps = code_points(s);
        int64_t done = 0;
        for (size_t k = 0; k <= cps.size(); ++k) {
            if (count < 0 || done < count) {
                out += with;
                ++done;
            }
            if (k < cps.size()) append_utf8(out, cps[k]);
            budget.string_size(out.size(), line);
        }
        return out;
    }
    size_t at = 0;
    int64_t done = 0;
    while (count < 0 || done < count) {
        const size_t f = s.find(old, at);
        if (f == std::string::npos) break;
        out.append(s, at, f - at);
        out += with;
        budget.string_size(out.size(), line);
        at = f + old.size();
        ++done;
    }
    out.append(s, at, std::string::npos);
    budget.string_size(out.size(), line);
    return out;
}

Value split(const std::string &s, const Value *sep, int64_t maxsplit, int line) {
    List out;
    if (!sep || sep->is_none() || sep->is_undefined()) {
        size_t i = leading_whitespace(s);
        while (i < s.size()) {
            size_t j = i;
            while (j < s.size() && whitespace_len(s, j) == 0)
                ++j;
            if (maxsplit >= 0 && static_cast<int64_t>(out.size()) >= maxsplit) {
                std::string rest = s.substr(i);
                rest.resize(rest.size() - trailing_whitespace(rest));
                out.push_back(Value::string(rest));
                break;
            }
            out.push_back(Value::string(s.substr(i, j - i)));
            i = j + leading_whitespace(std::string_view(s).substr(j));
        }
        return Value::make_list(std::move(out));
    }
    if (!sep->is_string()) fail_at(line, "split() separator must be a string");
    if (sep->s.empty()) fail_at(line, "split(): empty separator");
    size_t at = 0;
    while (true) {
        if (maxsplit >= 0 && static_cast<int64_t>(out.size()) >= maxsplit) break;
        const size_t f = s.find(sep->s, at);
        if (f == std::string::npos) break;
        out.push_back(Value::string(s.substr(at, f - at)));
        at = f + sep->s.size();
    }
    out.push_back(Value::string(s.substr(at)));
    return Value::make_list(std::move(out));
}

bool starts_or_ends(const std::string &s, const Value &pat, bool start, int line) {
    auto one = [&](const Value &p) {
        if (!p.is_string()) fail_at(line, "startswith/endswith expects strings");
        if (p.s.size() > s.size()) return false;
        return start ? s.compare(0, p.s.size(), p.s) == 0
                     : s.compare(s.size() - p.s.size(), p.s.size(), p.s) == 0;
    };
    if (pat.is_list()) {
        for (const Value &p : *pat.list)
            if (one(p)) return true;
        return false;
    }
    return one(pat);
}

// Attribute path "a.b.0" of an item (dict keys, list indices).
Value attribute(const Value &item, const std::string &path) {
    Value v = item;
    size_t at = 0;
    while (true) {
        const size_t dot = path.find('.', at);
        const std::string part = path.substr(at, dot == std::string::npos ? dot : dot - at);
        if (v.type == Type::Dict || v.type == Type::Namespace) {
            const Value *x = v.dict->find(part);
            if (!x) return Value();
            v = *x;
        } else if (v.is_list() && !part.empty() &&
                   part.find_first_not_of("0123456789") == std::string::npos && part.size() < 10) {
            const size_t k = std::stoul(part);
            if (k >= v.list->size()) return Value();
            v = (*v.list)[k];
        } else {
            return Value();
        }
        if (dot == std::string::npos) return v;
        at = dot + 1;
    }
}

// The elements a filter iterates: list items, dict keys, string characters.
List iterate(const Value &v, int line) {
    switch (v.type) {
    case Type::List: return *v.list;
    case Type::Dict: {
        List out;
        for (const auto &kv : v.dict->items)
            out.push_back(Value::string(kv.first));
        return out;
    }
    case Type::String: {
        if (v.s.size() > (1u << 20)) fail_at(line, "string too long to iterate");
        List out;
        for (uint32_t c : code_points(v.s)) {
            std::string ch;
            append_utf8(ch, c);
            out.push_back(Value::string(std::move(ch)));
        }
        return out;
    }
    case Type::Undefined: return {};
    default: fail_at(line, "'", type_name(v), "' object is not iterable");
    }
}

std::string html_escape(const std::string &s) {
    std::string out;
    for (char c : s) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&#34;"; break;
        case '\'': out += "&#39;"; break;
        default: out += c;
        }
    }
    return out;
}

int64_t length(const Value &v, int line) {
    switch (v.type) {
    case Type::String: return static_cast<int64_t>(code_points(v.s).size());
    case Type::List: return static_cast<int64_t>(v.list->size());
    case Type::Dict:
    case Type::Namespace: return static_cast<int64_t>(v.dict->size());
    case Type::Undefined: return 0;
    default: fail_at(line, "object of type '", type_name(v), "' has no length");
    }
}

bool arg_bool(const Value *v, bool def) {
    return v ? truthy(*v) : def;
}

} // namespace

Value Builtins::filter(const std::string &name, const Value &x, CallArgs &args, int line) {
    budget.step(line);
    auto str_of = [&](const Value &v) { return v.is_string() ? v.s : to_str(v); };
    if (name == "safe" || (name == "list" && x.is_list())) return x;
    if (name == "string") return Value::string(str_of(x));
    if (name == "tojson") {
        JsonOptions o;
        const Value *ascii = args.get(0, "ensure_ascii");
        const Value *indent = args.get(1, "indent");
        const Value *seps = args.get(2, "separators");
        const Value *sort = args.get(3, "sort_keys");
        o.ensure_ascii = arg_bool(ascii, false);
        o.sort_keys = arg_bool(sort, false);
        if (indent && indent->is_numeric())
            o.indent = static_cast<int>(std::clamp<int64_t>(indent->as_int(), 0, 64));
        if (seps && seps->is_list()) {
            if (seps->list->size() != 2 || !(*seps->list)[0].is_string() ||
                !(*seps->list)[1].is_string())
                fail_at(line, "tojson: separators must be two strings");
            o.has_separators = true;
            o.item_sep = (*seps->list)[0].s;
            o.key_sep = (*seps->list)[1].s;
        }
        return Value::string(to_json(x, o, budget.limits.max_string));
    }
    if (name == "trim") return Value::string(strip(str_of(x), args.get(0, "chars"), true, true));
    if (name == "length" || name == "count") return Value::integer(length(x, line));
    if (name == "lower") return Value::string(lower(str_of(x)));
    if (name == "upper") return Value::string(upper(str_of(x)));
    if (name == "capitalize") return Value::string(capitalize(str_of(x)));
    if (name == "title") return Value::string(title(str_of(x)));
    if (name == "e" || name == "escape" || name == "forceescape")
        return Value::string(html_escape(str_of(x)));
    if (name == "replace") {
        const Value *a = args.get(0, "old"), *b = args.get(1, "new"), *c = args.get(2, "count");
        if (!a || !b) fail_at(line, "replace needs two arguments");
        return Value::string(replace(str_of(x), str_of(*a), str_of(*b),
                                     c && c->is_numeric() ? c->as_int() : -1, budget, line));
    }
    if (name == "join") {
        const Value *sep = args.get(0, "d");
        const Value *attr = args.get(1, "attribute");
        std::string out;
        bool first = true;
        for (const Value &v : iterate(x, line)) {
            if (!first && sep) out += str_of(*sep);
            first = false;
            out += str_of(attr ? attribute(v, str_of(*attr)) : v);
            budget.string_size(out.size(), line);
        }
        return Value::string(out);
    }
    if (name == "first" || name == "last") {
        const List items = iterate(x, line);
        if (items.empty()) return Value();
        return name == "first" ? items.front() : items.back();
    }
    if (name == "default" || name == "d") {
        const Value *def = args.get(0, "default_value");
        const bool boolean = arg_bool(args.get(1, "boolean"), false);
        if (x.is_undefined() || (boolean && !truthy(x))) return def ? *def : Value::string("");
        return x;
    }
    if (name == "items") {
        if (x.is_undefined()) return Value::make_list();
        if (x.type != Type::Dict && x.type != Type::Namespace) fail_at(line, "items needs a dict");
        List out;
        for (const auto &kv : x.dict->items)
            out.push_back(Value::make_tuple({Value::string(kv.first), kv.second}));
        return Value::make_list(std::move(out));
    }
    if (name == "dictsort") {
        if (x.type != Type::Dict) fail_at(line, "dictsort needs a dict");
        const bool cs = arg_bool(args.get(0, "case_sensitive"), false);
        const Value *by = args.get(1, "by");
        const bool by_value = by && by->is_string() && by->s == "value";
        const bool reverse = arg_bool(args.get(2, "reverse"), false);
        List out;
        for (const auto &kv : x.dict->items)
            out.push_back(Value::make_tuple({Value::string(kv.first), kv.second}));
        std::stable_sort(out.begin(), out.end(), [&](const Value &a, const Value &b) {
            Value ka = (*a.list)[by_value ? 1 : 0], kb = (*b.list)[by_value ? 1 : 0];
            if (!cs && ka.is_string()) ka.s = lower(ka.s);
            if (!cs && kb.is_string()) kb.s = lower(kb.s);
            const int c = compare(ka, kb, line);
            return reverse ? c > 0 : c < 0;
        });
        return Value::make_list(std::move(out));
    }
    if (name == "selectattr" || name == "rejectattr" || name == "select" || name == "reject") {
        const bool attr_form = name == "selectattr" || name == "rejectattr";
        const bool keep = name == "selectattr" || name == "select";
        size_t next = 0;
        std::string attr;
        if (attr_form) {
            if (args.pos.empty()) fail_at(line, name, " needs an attribute name");
            attr = str_of(args.pos[next++]);
        }
        std::string test_name;
        if (next < args.pos.size()) test_name = str_of(args.pos[next++]);
        CallArgs targs;
        targs.line = line;
        targs.pos.assign(args.pos.begin() + static_cast<std::ptrdiff_t>(next), args.pos.end());
        List out;
        for (const Value &item : iterate(x, line)) {
            budget.step(line);
            const Value v = attr_form ? attribute(item, attr) : item;
            const bool ok = test_name.empty() ? truthy(v) : test(test_name, v, targs, line);
            if (ok == keep) out.push_back(item);
        }
        return Value::make_list(std::move(out));
    }
    if (name == "map") {
        List out;
        const Value *attr = args.kwarg("attribute");
        if (attr) {
            const Value *def = args.kwarg("default");
            for (const Value &item : iterate(x, line)) {
                Value v = attribute(item, str_of(*attr));
                out.push_back(v.is_undefined() && def ? *def : v);
            }
            return Value::make_list(std::move(out));
        }
        if (args.pos.empty()) fail_at(line, "map needs a filter name or attribute=");
        const std::string fname = str_of(args.pos[0]);
        CallArgs fargs;
        fargs.line = line;
        fargs.pos.assign(args.pos.begin() + 1, args.pos.end());
        fargs.kw = args.kw;
        for (const Value &item : iterate(x, line))
            out.push_back(filter(fname, item, fargs, line));
        return Value::make_list(std::move(out));
    }
    if (name == "indent") {
        const Value *w = args.get(0, "width");
        const bool first = arg_bool(args.get(1, "first"), false);
        const bool blank = arg_bool(args.get(2, "blank"), false);
        std::string pad =
            w && w->is_string()
                ? w->s
                : std::string(static_cast<size_t>(std::clamp<int64_t>(w ? w->as_int() : 4, 0, 256)),
                              ' ');
        const std::string s = str_of(x);
        std::string out;
        size_t at = 0;
        bool first_line = true;
        while (true) {
            const size_t nl = s.find('\n', at);
            const std::string ln = s.substr(at, nl == std::string::npos ? nl : nl - at);
            if ((first_line ? first : true) && (blank || !ln.empty())) out += pad;
            out += ln;
            budget.string_size(out.size(), line);
            if (nl == std::string::npos) break;
            out += '\n';
            at = nl + 1;
            first_line = false;
        }
        return Value::string(out);
    }
    if (name == "int") {
        const Value *def = args.get(0, "default");
        const Value fallback = def ? *def : Value::integer(0);
        if (x.is_numeric()) {
            if (x.type == Type::Float && !(std::fabs(x.f) < 9.2e18)) return fallback;
            return Value::integer(x.as_int());
        }
        if (x.is_string()) {
            const std::string t = strip(x.s, nullptr, true, true);
            char *end = nullptr;
            errno = 0;
            const long long v = std::strtoll(t.c_str(), &end, 10);
            if (!t.empty() && end && *end == '\0' && errno == 0) return Value::integer(v);
            const double d = std::strtod(t.c_str(), &end);
            if (!t.empty() && end && *end == '\0' && std::fabs(d) < 9.2e18)
                return Value::integer(static_cast<int64_t>(d));
        }
        return fallback;
    }
    if (name == "float") {
        const Value *def = args.get(0, "default");
        if (x.is_numeric()) return Value::number(x.as_double());
        if (x.is_string()) {
            const std::string t = strip(x.s, nullptr, true, true);
            char *end = nullptr;
            const double d = std::strtod(t.c_str(), &end);
            if (!t.empty() && end && *end == '\0') return Value::number(d);
        }
        return def ? *def : Value::number(0.0);
    }
    if (name == "bool") return Value::boolean(truthy(x));
    if (name == "list") return Value::make_list(iterate(x, line));
    if (name == "unique") {
        List out;
        for (const Value &v : iterate(x, line)) {
            budget.step(line);
            bool seen = false;
            for (const Value &o : out)
                if (equals(o, v)) {
                    seen = true;
                    break;
                }
            if (!seen) out.push_back(v);
        }
        return Value::make_list(std::move(out));
    }
    if (name == "reverse") {
        if (x.is_string()) {
            auto cps = code_points(x.s);
            std::reverse(cps.begin(), cps.end());
            return Value::string(from_code_points(cps.data(), cps.size()));
        }
        List items = iterate(x, line);
        std::reverse(items.begin(), items.end());
        return Value::make_list(std::move(items));
    }
    if (name == "sort") {
        const bool reverse = arg_bool(args.get(0, "reverse"), false);
        const bool cs = arg_bool(args.get(1, "case_sensitive"), false);
        const Value *attr = args.get(2, "attribute");
        List items = iterate(x, line);
        budget.step(line, items.size());
        std::stable_sort(items.begin(), items.end(), [&](const Value &a, const Value &b) {
            Value ka = attr ? attribute(a, str_of(*attr)) : a;
            Value kb = attr ? attribute(b, str_of(*attr)) : b;
            if (!cs && ka.is_string()) ka.s = lower(ka.s);
            if (!cs && kb.is_string()) kb.s = lower(kb.s);
            const int c = compare(ka, kb, line);
            return reverse ? c > 0 : c < 0;
        });
        return Value::make_list(std::move(items));
    }
    if (name == "abs") {
        if (x.type == Type::Float) return Value::number(std::fabs(x.f));
        if (x.is_numeric()) {
            const int64_t v = x.as_int();
            if (v == INT64_MIN) fail_at(line, "integer overflow");
            return Value::integer(v < 0 ? -v : v);
        }
        fail_at(line, "abs needs a number");
    }
    if (name == "round") {
        const Value *p = args.get(0, "precision");
        const Value *m = args.get(1, "method");
        const int64_t prec = p ? std::clamp<int64_t>(p->as_int(), -20, 20) : 0;
        const std::string method = m ? str_of(*m) : "common";
        if (!x.is_numeric()) fail_at(line, "round needs a number");
        const double scale = std::pow(10.0, static_cast<double>(prec));
        const double v = x.as_double() * scale;
        double r;
        if (method == "ceil")
            r = std::ceil(v);
        else if (method == "floor")
            r = std::floor(v);
        else
            r = std::nearbyint(v); // Python's round: half to even
        return Value::number(r / scale);
    }
    if (name == "sum") {
        const Value *attr = args.get(0, "attribute");
        const Value *start = args.get(1, "start");
        Value acc = start ? *start : Value::integer(0);
        for (const Value &v0 : iterate(x, line)) {
            const Value v = attr ? attribute(v0, str_of(*attr)) : v0;
            if (!v.is_numeric() || !acc.is_numeric()) fail_at(line, "sum needs numbers");
            if (v.type == Type::Float || acc.type == Type::Float)
                acc = Value::number(acc.as_double() + v.as_double());
            else {
                int64_t r;
                if (__builtin_add_overflow(acc.as_int(), v.as_int(), &r))
                    fail_at(line, "integer overflow");
                acc = Value::integer(r);
            }
        }
        return acc;
    }
    if (name == "min" || name == "max") {
        const List items = iterate(x, line);
        if (items.empty()) return Value();
        Value best = items[0];
        for (const Value &v : items) {
            const int c = compare(v, best, line);
            if (name == "min" ? c < 0 : c > 0) best = v;
        }
        return best;
    }
    if (name == "attr") {
        const Value *a = args.get(0, "name");
        return a ? attribute(x, str_of(*a)) : Value();
    }
    if (name == "wordcount") {
        return Value::integer(
            static_cast<int64_t>(split(str_of(x), nullptr, -1, line).list->size()));
    }
    fail_at(line, "unknown filter '", name, "'");
}

bool Builtins::test(const std::string &name, const Value &x, CallArgs &args, int line) {
    budget.step(line);
    const Value *arg = args.get(0, nullptr);
    auto need = [&]() -> const Value & {
        if (!arg) fail_at(line, "test '", name, "' needs an argument");
        return *arg;
    };
    if (name == "defined") return !x.is_undefined();
    if (name == "undefined") return x.is_undefined();
    if (name == "none") return x.is_none();
    if (name == "boolean") return x.type == Type::Bool;
    if (name == "true") return x.type == Type::Bool && x.b;
    if (name == "false") return x.type == Type::Bool && !x.b;
    if (name == "string") return x.is_string();
    if (name == "number") return x.is_numeric();
    if (name == "integer") return x.type == Type::Int;
    if (name == "float") return x.type == Type::Float;
    if (name == "mapping") return x.type == Type::Dict;
    if (name == "iterable") return x.is_string() || x.is_list() || x.type == Type::Dict;
    if (name == "sequence") return x.is_string() || x.is_list() || x.type == Type::Dict;
    if (name == "callable") return x.type == Type::Callable;
    if (name == "escaped") return false;
    if (name == "lower") return x.is_string() && lower(x.s) == x.s;
    if (name == "upper") return x.is_string() && upper(x.s) == x.s;
    if (name == "odd" || name == "even" || name == "divisibleby") {
        if (x.type != Type::Int && x.type != Type::Bool)
            fail_at(line, "test '", name, "' needs an integer");
        const int64_t v = x.as_int();
        if (name == "divisibleby") {
            const Value &d = need();
            if (!d.is_numeric() || d.as_int() == 0)
                fail_at(line, "divisibleby needs a non-zero integer");
            const int64_t m = d.as_int();
            return m == -1 || v % m == 0; // (INT64_MIN % -1 overflows)
        }
        return (v % 2 != 0) == (name == "odd");
    }
    if (name == "eq" || name == "equalto" || name == "==") return equals(x, need());
    if (name == "ne" || name == "!=") return !equals(x, need());
    if (name == "lt" || name == "lessthan" || name == "<") return compare(x, need(), line) < 0;
    if (name == "le" || name == "<=") return compare(x, need(), line) <= 0;
    if (name == "gt" || name == "greaterthan" || name == ">") return compare(x, need(), line) > 0;
    if (name == "ge" || name == ">=") return compare(x, need(), line) >= 0;
    if (name == "sameas") {
        const Value &o = need();
        if (x.type != o.type) return false;
        if (x.is_list()) return x.list == o.list;
        if (x.type == Type::Dict || x.type == Type::Namespace) return x.dict == o.dict;
        return equals(x, o);
    }
    if (name == "in") {
        const Value &c = need();
        if (c.is_string()) return x.is_string() && c.s.find(x.s) != std::string::npos;
        if (c.is_list()) {
            for (const Value &v : *c.list)
                if (equals(v, x)) return true;
            return false;
        }
        if (c.type == Type::Dict) return x.is_string() && c.dict->find(x.s) != nullptr;
        return false;
    }
    fail_at(line, "unknown test '", name, "'");
}

bool Builtins::method(const Value &obj, const std::string &name, CallArgs &args, int line,
                      Value &out) {
    budget.step(line);
    if (obj.is_string()) {
        const std::string &s = obj.s;
        if (name == "startswith" || name == "endswith") {
            const Value *p = args.get(0, nullptr);
            if (!p) fail_at(line, name, "() needs an argument");
            out = Value::boolean(starts_or_ends(s, *p, name == "startswith", line));
        } else if (name == "strip" || name == "lstrip" || name == "rstrip") {
            out = Value::string(strip(s, args.get(0, "chars"), name != "rstrip", name != "lstrip"));
        } else if (name == "split") {
            const Value *m = args.get(1, "maxsplit");
            out = split(s, args.get(0, "sep"), m && m->is_numeric() ? m->as_int() : -1, line);
            budget.items(out.list->size(), line);
        } else if (name == "upper") {
            out = Value::string(upper(s));
        } else if (name == "lower") {
            out = Value::string(lower(s));
        } else if (name == "title") {
            out = Value::string(title(s));
        } else if (name == "capitalize") {
            out = Value::string(capitalize(s));
        } else if (name == "replace") {
            const Value *a = args.get(0, nullptr), *b = args.get(1, nullptr),
                        *c = args.get(2, "count");
            if (!a || !b || !a->is_string() || !b->is_string())
                fail_at(line, "replace() needs two strings");
            out = Value::string(
                replace(s, a->s, b->s, c && c->is_numeric() ? c->as_int() : -1, budget, line));
        } else if (name == "find" || name == "count") {
            const Value *a = args.get(0, nullptr);
            if (!a || !a->is_string()) fail_at(line, name, "() needs a string");
            if (name == "find") {
                const size_t f = s.find(a->s);
                out =
                    Value::integer(f == std::string::npos
                                       ? -1
                                       : static_cast<int64_t>(code_points(s.substr(0, f)).size()));
            } else {
                int64_t n = 0;
                if (a->s.empty()) {
                    n = static_cast<int64_t>(code_points(s).size()) + 1;
                } else {
                    for (size_t f = s.find(a->s); f != std::string::npos;
                         f = s.find(a->s, f + a->s.size()))
                        ++n;
                }
                out = Value::integer(n);
            }
        } else if (name == "join") {
            const Value *a = args.get(0, nullptr);
            if (!a) fail_at(line, "join() needs an argument");
            std::string r;
            bool first = true;
            for (const Value &v : iterate(*a, line)) {
                if (!first) r += s;
                first = false;
                if (!v.is_string()) fail_at(line, "join() expects strings");
                r += v.s;
                budget.string_size(r.size(), line);
            }
            out = Value::string(r);
        } else if (name == "splitlines") {
            List parts;
            size_t at = 0;
            while (at < s.size()) {
                size_t nl = s.find_first_of("\r\n", at);
                if (nl == std::string::npos) {
                    parts.push_back(Value::string(s.substr(at)));
                    break;
                }
                parts.push_back(Value::string(s.substr(at, nl - at)));
                at = nl + (s[nl] == '\r' && nl + 1 < s.size() && s[nl + 1] == '\n' ? 2 : 1);
            }
            out = Value::make_list(std::move(parts));
        } else if (name == "isdigit" || name == "isalpha" || name == "isspace" ||
                   name == "isalnum") {
            bool ok = !s.empty();
            for (char c : s) {
                const bool d = c >= '0' && c <= '9', a = is_ascii_lower(c) || is_ascii_upper(c);
                if (name == "isdigit")
                    ok = ok && d;
                else if (name == "isalpha")
                    ok = ok && a;
                else if (name == "isalnum")
                    ok = ok && (a || d);
                else
                    ok = ok && whitespace_len(std::string(1, c), 0) > 0;
            }
            out = Value::boolean(ok);
        } else if (name == "format") {
            // str.format with {} / {0} / {name} fields.
            std::string r;
            size_t auto_index = 0;
            for (size_t k = 0; k < s.size(); ++k) {
                if (s[k] == '{' && k + 1 < s.size() && s[k + 1] == '{') {
                    r += '{';
                    ++k;
                } else if (s[k] == '}' && k + 1 < s.size() && s[k + 1] == '}') {
                    r += '}';
                    ++k;
                } else if (s[k] == '{') {
                    const size_t end = s.find('}', k);
                    if (end == std::string::npos) fail_at(line, "format(): unmatched '{'");
                    const std::string field = s.substr(k + 1, end - k - 1);
                    const Value *v;
                    if (field.empty())
                        v = args.get(auto_index++, nullptr);
                    else if (field.find_first_not_of("0123456789") == std::string::npos &&
                             field.size() < 6)
                        v = args.get(std::stoul(field), nullptr);
                    else
                        v = args.kwarg(field.c_str());
                    if (!v) fail_at(line, "format(): no argument for {", field, "}");
                    r += v->is_string() ? v->s : to_str(*v);
                    budget.string_size(r.size(), line);
                    k = end;
                } else {
                    r += s[k];
                }
            }
            out = Value::string(r);
        } else {
            return false;
        }
        return true;
    }
    if (obj.type == Type::Dict || obj.type == Type::Namespace) {
        if (name == "get") {
            const Value *k = args.get(0, nullptr);
            const Value *def = args.get(1, "default");
            const Value *v = k && k->is_string() ? obj.dict->find(k->s) : nullptr;
            out = v ? *v : def ? *def : Value::none();
        } else if (name == "items" || name == "keys" || name == "values") {
            List l;
            for (const auto &kv : obj.dict->items) {
                if (name == "items")
                    l.push_back(Value::make_tuple({Value::string(kv.first), kv.second}));
                else if (name == "keys")
                    l.push_back(Value::string(kv.first));
                else
                    l.push_back(kv.second);
            }
            out = Value::make_list(std::move(l));
        } else {
            return false;
        }
        return true;
    }
    if (obj.is_list()) {
        List &l = *obj.list;
        if (name == "append") {
            const Value *v = args.get(0, nullptr);
            if (!v) fail_at(line, "append() needs an argument");
            budget.items(l.size() + 1, line);
            l.push_back(*v);
            out = Value::none();
        } else if (name == "extend") {
            const Value *v = args.get(0, nullptr);
            if (!v) fail_at(line, "extend() needs an argument");
            const List more = iterate(*v, line);
            budget.items(l.size() + more.size(), line);
            l.insert(l.end(), more.begin(), more.end());
            out = Value::none();
        } else if (name == "pop") {
            if (l.empty()) fail_at(line, "pop from an empty list");
            const Value *i = args.get(0, nullptr);
            int64_t k = i ? i->as_int() : -1;
            if (k < 0) k += static_cast<int64_t>(l.size());
            if (k < 0 || k >= static_cast<int64_t>(l.size()))
                fail_at(line, "pop index out of range");
            out = l[static_cast<size_t>(k)];
            l.erase(l.begin() + k);
        } else if (name == "index" || name == "count") {
            const Value *v = args.get(0, nullptr);
            if (!v) fail_at(line, name, "() needs an argument");
            int64_t n = 0, at = -1;
            for (size_t k = 0; k < l.size(); ++k)
                if (equals(l[k], *v)) {
                    if (at < 0) at = static_cast<int64_t>(k);
                    ++n;
                }
            if (name == "index" && at < 0) fail_at(line, "index(): value not in list");
            out = Value::integer(name == "index" ? at : n);
        } else {
            return false;
        }
        return true;
    }
    return false;
}

} // namespace llm::jinja
