#include "grammar/json_schema_gbnf.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.h"

namespace llm {

namespace {

// ordered_json keeps the schema's property order, which the output follows.
using OJson = nlohmann::ordered_json;

constexpr size_t kMaxSchemaBytes = size_t(1) << 20;
constexpr int kMaxJsonDepth = 128;
constexpr int kMaxSchemaDepth = 64;
constexpr size_t kMaxGrammarBytes = size_t(4) << 20;
constexpr size_t kMaxVisits = 100000;
constexpr int64_t kMaxRepeat = 4096;
// Numbers are bounded so that every output is a finite double and every
// integer is exact in one: at most 15 digits before the point, 15 after,
// and a 2-digit exponent.
constexpr int64_t kMaxIntMagnitude = 999999999999999;

[[noreturn]] void bad(const std::string &ptr, const std::string &what) {
    fail(LLM_ERR_GRAMMAR, "json schema: ", what, " at #", ptr);
}

// Reject deep nesting before nlohmann builds (and later destroys) the tree.
void check_nesting(const std::string &text) {
    int depth = 0;
    bool in_string = false, escaped = false;
    for (char c : text) {
        if (in_string) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > kMaxJsonDepth)
                fail(LLM_ERR_GRAMMAR, "json schema: nested deeper than ", kMaxJsonDepth, " levels");
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
}

OJson parse_schema(const std::string &text) {
    if (text.size() > kMaxSchemaBytes)
        fail(LLM_ERR_GRAMMAR, "json schema: larger than ", kMaxSchemaBytes, " bytes");
    check_nesting(text);
    std::vector<std::set<std::string>> open_objects;
    std::string duplicate;
    auto check_keys = [&](int, OJson::parse_event_t event, OJson &parsed) {
        switch (event) {
        case OJson::parse_event_t::object_start: open_objects.emplace_back(); break;
        case OJson::parse_event_t::object_end:
            if (!open_objects.empty()) open_objects.pop_back();
            break;
        case OJson::parse_event_t::key:
            if (!open_objects.empty() && duplicate.empty() &&
                !open_objects.back().insert(parsed.get<std::string>()).second)
                duplicate = parsed.get<std::string>();
            break;
        default: break;
        }
        return true;
    };
    OJson out;
    try {
        out = OJson::parse(text, check_keys);
    } catch (const OJson::exception &e) {
        fail(LLM_ERR_GRAMMAR, "json schema: invalid JSON: ", e.what());
    }
    if (!duplicate.empty())
        fail(LLM_ERR_GRAMMAR, "json schema: duplicate JSON key \"", duplicate, "\"");
    return out;
}

std::string compact_json(const OJson &v) {
    return v.dump(-1, ' ', false, nlohmann::detail::error_handler_t::strict);
}

// A GBNF string literal for the bytes of `s`.
std::string literal(const std::string &s) {
    static const char hex[] = "0123456789abcdef";
    std::string out = "\"";
    for (unsigned char c : s) {
        if (c == '"')
            out += "\\\"";
        else if (c == '\\')
            out += "\\\\";
        else if (c == '\n')
            out += "\\n";
        else if (c == '\r')
            out += "\\r";
        else if (c == '\t')
            out += "\\t";
        else if (c < 0x20 || c == 0x7f) {
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
        } else
            out += char(c);
    }
    return out + "\"";
}

std::string pointer_token(const std::string &key) {
    std::string out;
    for (char c : key) {
        if (c == '~')
            out += "~0";
        else if (c == '/')
            out += "~1";
        else
            out += c;
    }
    return out;
}

// "*", "+", "?", "{m}", "{m,}" or "{m,n}"; max < 0 means unbounded.
std::string repeat(const std::string &term, int64_t min, int64_t max) {
    if (max == 0) return "";
    if (min == 0 && max < 0) return term + "*";
    if (min == 1 && max < 0) return term + "+";
    if (min == 0 && max == 1) return term + "?";
    if (min == 1 && max == 1) return term;
    if (max < 0) return term + "{" + std::to_string(min) + ",}";
    if (min == max) return term + "{" + std::to_string(min) + "}";
    return term + "{" + std::to_string(min) + "," + std::to_string(max) + "}";
}

bool is_annotation(const std::string &k) {
    static const std::set<std::string> names = {
        "title",      "description", "$schema",   "$id",     "$comment", "examples",   "default",
        "deprecated", "readOnly",    "writeOnly", "$anchor", "$defs",    "definitions"};
    return names.count(k) != 0;
}

bool is_known(const std::string &k) {
    static const std::set<std::string> names = {"type",
                                                "enum",
                                                "const",
                                                "anyOf",
                                                "oneOf",
                                                "allOf",
                                                "$ref",
                                                "nullable",
                                                "properties",
                                                "required",
                                                "additionalProperties",
                                                "items",
                                                "prefixItems",
                                                "minItems",
                                                "maxItems",
                                                "uniqueItems",
                                                "minLength",
                                                "maxLength",
                                                "format",
                                                "minimum",
                                                "maximum",
                                                "exclusiveMinimum",
                                                "exclusiveMaximum"};
    return names.count(k) != 0;
}

// The rules the generated ones build on, each with the rules it uses.
struct SharedRule {
    const char *name;
    const char *body;
    std::vector<const char *> uses;
};

const std::vector<SharedRule> &shared_rules() {
    static const std::vector<SharedRule> rules = {
        // Any character but the quote, the backslash and controls, or an
        // escape. Surrogates are left out: they are not characters (a UTF-8
        // lead byte for one could never be completed), and without \u
        // escapes of them every character counts as one code point for
        // minLength/maxLength.
        {"char",
         R"([^"\\\x00-\x1f\uD800-\uDFFF] | "\\" ( ["\\/bfnrt] | "u" ( [0-9a-cA-CefEF] [0-9a-fA-F]{3} | [dD] [0-7] [0-9a-fA-F]{2} ) ))",
         {}},
        {"string", R"("\"" char* "\"")", {"char"}},
        {"integer", R"("-"? ( "0" | [1-9] [0-9]{0,14} ))", {}},
        {"number",
         R"("-"? ( "0" | [1-9] [0-9]{0,14} ) ( "." [0-9]{1,15} )? ( [eE] [-+]? [0-9]{1,2} )?)",
         {}},
        {"number-nonneg",
         R"(( "0" | [1-9] [0-9]{0,14} ) ( "." [0-9]{1,15} )? ( [eE] [-+]? [0-9]{1,2} )?)",
         {}},
        {"boolean", R"("true" | "false")", {}},
        {"null", R"("null")", {}},
        {"value",
         R"(object | array | string | number | boolean | null)",
         {"object", "array", "string", "number", "boolean", "null"}},
        {"object",
         R"("{" ( string ":" value ( "," string ":" value )* )? "}")",
         {"string", "value"}},
        {"array", R"("[" ( value ( "," value )* )? "]")", {"value"}},
        {"day28", R"("0" [1-9] | "1" [0-9] | "2" [0-8])", {}},
        // Every month with its days (29 February is left out: the grammar
        // does not know leap years).
        {"date-body",
         R"([0-9]{4} "-" ( ( "01" | "03" | "05" | "07" | "08" | "10" | "12" ) "-" ( day28 | "29" | "30" | "31" ) | ( "04" | "06" | "09" | "11" ) "-" ( day28 | "29" | "30" ) | "02" "-" day28 ))",
         {"day28"}},
        {"time-body",
         R"(( [01] [0-9] | "2" [0-3] ) ":" [0-5] [0-9] ":" [0-5] [0-9] ( "." [0-9]{1,6} )? ( "Z" | [+-] ( [01] [0-9] | "2" [0-3] ) ":" [0-5] [0-9] ))",
         {}},
        {"date-string", R"("\"" date-body "\"")", {"date-body"}},
        {"time-string", R"("\"" time-body "\"")", {"time-body"}},
        {"date-time-string", R"("\"" date-body "T" time-body "\"")", {"date-body", "time-body"}},
        {"uuid-string",
         R"("\"" [0-9a-f]{8} "-" [0-9a-f]{4} "-" [0-9a-f]{4} "-" [0-9a-f]{4} "-" [0-9a-f]{12} "\"")",
         {}},
    };
    return rules;
}

// A GBNF expression; atomic ones (a rule name or one literal) can stand in
// a sequence or under a repetition without parentheses.
struct Expr {
    std::string text;
    bool atomic;
};

std::string digit_class(char lo, char hi) {
    if (lo == hi) return literal(std::string(1, lo));
    return std::string("[") + lo + "-" + hi + "]";
}

std::string any_digits(size_t n) {
    return n == 1 ? "[0-9]" : "[0-9]{" + std::to_string(n) + "}";
}

// Alternatives spelling exactly the numbers from a to b, two digit strings
// of the same length with a <= b.
void same_length_range(const std::string &a, const std::string &b, const std::string &prefix,
                       std::vector<std::string> &out) {
    if (a.empty()) {
        out.push_back(prefix);
        return;
    }
    const std::string sep = prefix.empty() ? "" : " ";
    if (a[0] == b[0]) {
        same_length_range(a.substr(1), b.substr(1), prefix + sep + literal(a.substr(0, 1)), out);
        return;
    }
    const size_t rest = a.size() - 1;
    if (rest == 0) {
        out.push_back(prefix + sep + digit_class(a[0], b[0]));
        return;
    }
    const bool a_low = a.find_first_not_of('0', 1) == std::string::npos;
    const bool b_high = b.find_first_not_of('9', 1) == std::string::npos;
    char lo = a[0], hi = b[0];
    if (!a_low) {
        same_length_range(a.substr(1), std::string(rest, '9'),
                          prefix + sep + literal(a.substr(0, 1)), out);
        ++lo;
    }
    if (!b_high) --hi;
    if (lo <= hi) out.push_back(prefix + sep + digit_class(lo, hi) + " " + any_digits(rest));
    if (!b_high)
        same_length_range(std::string(rest, '0'), b.substr(1),
                          prefix + sep + literal(b.substr(0, 1)), out);
}

void nonnegative_range(int64_t lo, int64_t hi, const std::string &prefix,
                       std::vector<std::string> &out) {
    int64_t low_of_length = 0, high_of_length = 9;
    while (low_of_length <= hi) {
        const int64_t a = std::max(lo, low_of_length), b = std::min(hi, high_of_length);
        if (a <= b) same_length_range(std::to_string(a), std::to_string(b), prefix, out);
        low_of_length = high_of_length + 1;
        if (high_of_length > kMaxIntMagnitude) break;
        high_of_length = high_of_length * 10 + 9;
    }
}

class Converter {
  public:
    explicit Converter(const OJson &root) : root_(root) {
        for (const SharedRule &r : shared_rules())
            taken_.insert(r.name);
        taken_.insert("root");
        refs_[""] = "root";
    }

    std::string run() {
        order_.push_back("root");
        Expr e = visit(root_, "", 0, &head_refs_[""], "root");
        define("root", e.text);
        check_ref_cycles();
        std::string out;
        for (const std::string &name : order_)
            out += name + " ::= " + bodies_[name] + "\n";
        return out;
    }

  private:
    const OJson &root_;
    std::set<std::string> taken_;
    std::vector<std::string> order_;
    std::map<std::string, std::string> bodies_;
    std::map<std::string, std::string> refs_; // JSON pointer -> rule name
    // For the root and each $ref target: the $ref targets its rule can
    // reach without consuming a character (a cycle there never ends).
    std::map<std::string, std::set<std::string>> head_refs_;
    size_t visits_ = 0;
    size_t grammar_bytes_ = 0;

    std::string new_rule(const std::string &hint) {
        std::string base;
        for (char c : hint.substr(0, 60)) {
            const bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                              (c >= '0' && c <= '9') || c == '-';
            base += word ? c : '-';
        }
        if (base.empty()) base = "rule";
        std::string name = base;
        for (int n = 2; taken_.count(name); ++n)
            name = base + "-" + std::to_string(n);
        taken_.insert(name);
        order_.push_back(name);
        return name;
    }

    void define(const std::string &name, const std::string &body) {
        grammar_bytes_ += name.size() + body.size() + 6;
        if (grammar_bytes_ > kMaxGrammarBytes)
            fail(LLM_ERR_GRAMMAR, "json schema: the grammar would exceed ", kMaxGrammarBytes,
                 " bytes");
        bodies_[name] = body;
    }

    std::string use(const std::string &name) {
        if (bodies_.count(name)) return name;
        for (const SharedRule &r : shared_rules()) {
            if (name != r.name) continue;
            order_.push_back(name);
            define(name, r.body);
            for (const char *dep : r.uses)
                use(dep);
            return name;
        }
        fail(LLM_ERR_INTERNAL, "json schema: no shared rule ", name);
    }

    // `e` as something that can stand in a sequence: a new rule unless it is
    // atomic already.
    std::string term(const Expr &e, const std::string &hint) {
        if (e.atomic) return e.text;
        const std::string name = new_rule(hint);
        define(name, e.text);
        return name;
    }

    Expr visit(const OJson &s, const std::string &ptr, int depth, std::set<std::string> *head,
               const std::string &hint) {
        if (++visits_ > kMaxVisits)
            bad(ptr, "more than " + std::to_string(kMaxVisits) + " subschemas to convert");
        if (depth > kMaxSchemaDepth)
            bad(ptr, "schemas nested deeper than " + std::to_string(kMaxSchemaDepth));
        if (s.is_boolean()) {
            if (!s.get<bool>()) bad(ptr, "the schema false accepts nothing");
            return {use("value"), true};
        }
        if (!s.is_object()) bad(ptr, "a schema must be an object or a boolean");
        for (const auto &kv : s.items())
            if (!is_annotation(kv.key()) && !is_known(kv.key()))
                bad(ptr, "unsupported keyword \"" + kv.key() + "\"");
        bool nullable = false;
        if (s.contains("nullable")) {
            if (!s["nullable"].is_boolean()) bad(ptr + "/nullable", "nullable must be a boolean");
            nullable = s["nullable"].get<bool>();
        }
        Expr e = core(s, ptr, depth, head, hint);
        if (nullable) e = {e.text + " | " + use("null"), false};
        return e;
    }

    // The keywords of `s` other than annotations and `except`.
    static std::vector<std::string> constraints(const OJson &s,
                                                const std::set<std::string> &except) {
        std::vector<std::string> out;
        for (const auto &kv : s.items())
            if (!is_annotation(kv.key()) && kv.key() != "nullable" && !except.count(kv.key()))
                out.push_back(kv.key());
        return out;
    }

    Expr core(const OJson &s, const std::string &ptr, int depth, std::set<std::string> *head,
              const std::string &hint) {
        if (s.contains("$ref")) {
            const auto others = constraints(s, {"$ref"});
            if (!others.empty()) bad(ptr, "\"$ref\" beside \"" + others[0] + "\" is not supported");
            return {ref(s["$ref"], ptr, depth, head), true};
        }
        if (s.contains("allOf")) return all_of(s, ptr, depth, head, hint);
        if (s.contains("anyOf") || s.contains("oneOf")) {
            const char *key = s.contains("anyOf") ? "anyOf" : "oneOf";
            const auto others = constraints(s, {key});
            if (!others.empty())
                bad(ptr,
                    std::string("\"") + key + "\" beside \"" + others[0] + "\" is not supported");
            const OJson &alts = s[key];
            if (!alts.is_array() || alts.empty())
                bad(ptr + "/" + key, std::string(key) + " must be a non-empty array");
            std::string text;
            for (size_t i = 0; i < alts.size(); ++i) {
                const Expr a = visit(alts[i], ptr + "/" + key + "/" + std::to_string(i), depth + 1,
                                     head, hint + "-" + std::to_string(i));
                text += (i ? " | " : "") + a.text;
            }
            return {text, false};
        }
        if (s.contains("enum") || s.contains("const")) return enum_values(s, ptr);

        std::vector<std::string> types;
        if (s.contains("type")) {
            const OJson &t = s["type"];
            if (t.is_string())
                types.push_back(t.get<std::string>());
            else if (t.is_array() && !t.empty())
                for (const OJson &one : t) {
                    if (!one.is_string()) bad(ptr + "/type", "type must name JSON types");
                    types.push_back(one.get<std::string>());
                }
            else
                bad(ptr + "/type", "type must be a string or a non-empty array of strings");
        } else {
            types = inferred_types(s);
        }
        if (types.empty()) return {use("value"), true};
        std::string text;
        bool atomic = types.size() == 1;
        for (const std::string &t : types) {
            const Expr e = of_type(t, s, ptr, depth, hint);
            text += (text.empty() ? "" : " | ") + e.text;
            atomic = atomic && e.atomic;
        }
        return {text, atomic};
    }

    static std::vector<std::string> inferred_types(const OJson &s) {
        std::vector<std::string> types;
        auto has = [&](std::initializer_list<const char *> keys) {
            for (const char *k : keys)
                if (s.contains(k)) return true;
            return false;
        };
        if (has({"properties", "required", "additionalProperties"})) types.push_back("object");
        if (has({"items", "prefixItems", "minItems", "maxItems"})) types.push_back("array");
        if (has({"minLength", "maxLength", "format"})) types.push_back("string");
        if (has({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}))
            types.push_back("number");
        return types;
    }

    Expr of_type(const std::string &t, const OJson &s, const std::string &ptr, int depth,
                 const std::string &hint) {
        if (t == "null") return {use("null"), true};
        if (t == "boolean") return {use("boolean"), true};
        if (t == "string") return string_type(s, ptr);
        if (t == "integer") return integer_type(s, ptr);
        if (t == "number") return number_type(s, ptr);
        if (t == "object") return object_type(s, ptr, depth, hint);
        if (t == "array") return array_type(s, ptr, depth, hint);
        bad(ptr + "/type", "unknown type \"" + t + "\"");
    }

    // A count keyword (minLength, maxItems, ...): absent gives `absent`.
    static int64_t count(const OJson &s, const char *key, const std::string &ptr, int64_t absent) {
        if (!s.contains(key)) return absent;
        const OJson &v = s[key];
        const std::string where = ptr + "/" + key;
        if (!v.is_number()) bad(where, std::string(key) + " must be a non-negative integer");
        const double d = v.get<double>();
        if (!(d >= 0) || d != std::floor(d))
            bad(where, std::string(key) + " must be a non-negative integer");
        if (d > double(kMaxRepeat))
            bad(where,
                std::string(key) + " above " + std::to_string(kMaxRepeat) + " is not supported");
        return int64_t(d);
    }

    Expr string_type(const OJson &s, const std::string &ptr) {
        if (s.contains("format")) {
            if (s.contains("minLength") || s.contains("maxLength"))
                bad(ptr, "minLength/maxLength beside format are not supported");
            const OJson &f = s["format"];
            if (!f.is_string()) bad(ptr + "/format", "format must be a string");
            const std::string name = f.get<std::string>();
            if (name == "date" || name == "time" || name == "date-time" || name == "uuid")
                return {use(name + "-string"), true};
            bad(ptr + "/format", "unsupported format \"" + name + "\"");
        }
        const int64_t min = count(s, "minLength", ptr, 0);
        const int64_t max = count(s, "maxLength", ptr, -1);
        if (max >= 0 && min > max) bad(ptr, "minLength above maxLength");
        if (min == 0 && max < 0) return {use("string"), true};
        const std::string chars = repeat(use("char"), min, max);
        return {"\"\\\"\" " + (chars.empty() ? "" : chars + " ") + "\"\\\"\"", false};
    }

    // A numeric bound of `s`, or `absent`.
    static double bound(const OJson &s, const char *key, const std::string &ptr, double absent) {
        if (!s.contains(key)) return absent;
        const OJson &v = s[key];
        if (v.is_boolean())
            bad(ptr + "/" + key,
                std::string("boolean ") + key + " (draft 4) is not supported; use a number");
        if (!v.is_number()) bad(ptr + "/" + key, std::string(key) + " must be a number");
        return v.get<double>();
    }

    Expr integer_type(const OJson &s, const std::string &ptr) {
        const double limit = double(kMaxIntMagnitude);
        double lo = -limit, hi = limit;
        const bool bounded = s.contains("minimum") || s.contains("maximum") ||
                             s.contains("exclusiveMinimum") || s.contains("exclusiveMaximum");
        if (!bounded) return {use("integer"), true};
        lo = std::max(lo, std::ceil(bound(s, "minimum", ptr, -limit)));
        lo = std::max(lo, std::floor(bound(s, "exclusiveMinimum", ptr, -limit - 1)) + 1);
        hi = std::min(hi, std::floor(bound(s, "maximum", ptr, limit)));
        hi = std::min(hi, std::ceil(bound(s, "exclusiveMaximum", ptr, limit + 1)) - 1);
        if (!(lo <= hi)) bad(ptr, "no integer of at most 15 digits between minimum and maximum");
        const int64_t ilo = int64_t(lo), ihi = int64_t(hi);
        std::vector<std::string> alts;
        if (ilo < 0) nonnegative_range(ihi < 0 ? -ihi : 1, -ilo, literal("-"), alts);
        if (ihi >= 0) nonnegative_range(std::max<int64_t>(ilo, 0), ihi, "", alts);
        std::string text;
        for (const std::string &a : alts)
            text += (text.empty() ? "" : " | ") + a;
        return {text, false};
    }

    Expr number_type(const OJson &s, const std::string &ptr) {
        const auto limits =
            constraints(s, {"type", "nullable", "properties", "required", "additionalProperties",
                            "items", "prefixItems", "minItems", "maxItems", "uniqueItems",
                            "minLength", "maxLength", "format"});
        if (limits.empty()) return {use("number"), true};
        if (limits.size() == 1 && limits[0] == "minimum" && s["minimum"].is_number() &&
            s["minimum"].get<double>() == 0)
            return {use("number-nonneg"), true};
        bad(ptr, "\"" + limits[0] +
                     "\" on a number is not supported (only minimum 0; integers take any range)");
    }

    Expr object_type(const OJson &s, const std::string &ptr, int depth, const std::string &hint) {
        const OJson empty = OJson::object();
        const OJson &props = s.contains("properties") ? s["properties"] : empty;
        if (!props.is_object()) bad(ptr + "/properties", "properties must be an object");
        std::set<std::string> required;
        if (s.contains("required")) {
            const OJson &r = s["required"];
            if (!r.is_array()) bad(ptr + "/required", "required must be an array of names");
            for (const OJson &name : r) {
                if (!name.is_string()) bad(ptr + "/required", "required must name properties");
                if (!props.contains(name.get<std::string>()))
                    bad(ptr + "/required", "required property \"" + name.get<std::string>() +
                                               "\" is not in properties");
                required.insert(name.get<std::string>());
            }
        }
        const OJson *extra =
            s.contains("additionalProperties") ? &s["additionalProperties"] : nullptr;
        if (extra && !extra->is_boolean() && !extra->is_object())
            bad(ptr + "/additionalProperties", "additionalProperties must be a schema");
        if (props.empty()) {
            if (extra && extra->is_boolean() && !extra->get<bool>()) return {literal("{}"), true};
            if (!extra || extra->is_boolean()) return {use("object"), true};
            // A map: any names, each value of the additionalProperties schema.
            const Expr v =
                visit(*extra, ptr + "/additionalProperties", depth + 1, nullptr, hint + "-value");
            const std::string kv = use("string") + " \":\" " + term(v, hint + "-value");
            return {"\"{\" ( " + kv + " ( \",\" " + kv + " )* )? \"}\"", false};
        }
        // Listed properties only, in the schema's order (see the header).
        std::vector<std::string> kvs;
        std::vector<bool> needed;
        for (const auto &p : props.items()) {
            // false: the property must be absent.
            if (p.value().is_boolean() && !p.value().get<bool>()) {
                if (required.count(p.key()))
                    bad(ptr + "/properties/" + pointer_token(p.key()),
                        "a required property with the schema false");
                continue;
            }
            const Expr v = visit(p.value(), ptr + "/properties/" + pointer_token(p.key()),
                                 depth + 1, nullptr, hint + "-" + p.key());
            kvs.push_back(literal(compact_json(OJson(p.key())) + ":") + " " +
                          term(v, hint + "-" + p.key()));
            needed.push_back(required.count(p.key()) != 0);
        }
        const size_t n = kvs.size();
        if (n == 0) return {literal("{}"), true};
        if (required.size() == n) {
            std::string text = "\"{\"";
            for (size_t i = 0; i < n; ++i)
                text += (i ? " \",\" " : " ") + kvs[i];
            return {text + " \"}\"", false};
        }
        // tails[i]: what may follow once property i is the last one written.
        std::vector<std::string> tails(n);
        for (size_t i = n - 1; i-- > 0;) {
            const std::string piece =
                needed[i + 1] ? "\",\" " + kvs[i + 1] : "( \",\" " + kvs[i + 1] + " )?";
            const std::string body = tails[i + 1].empty() ? piece : piece + " " + tails[i + 1];
            if (i + 2 == n) {
                tails[i] = needed[i + 1] ? "( " + body + " )" : body;
            } else {
                tails[i] = new_rule(hint + "-after-" + std::to_string(i));
                define(tails[i], body);
            }
        }
        std::string alts;
        bool all_optional = true;
        for (size_t i = 0; i < n; ++i) {
            alts += (i ? " | " : "") + kvs[i] + (tails[i].empty() ? "" : " " + tails[i]);
            if (needed[i]) {
                all_optional = false;
                break;
            }
        }
        return {"\"{\" ( " + alts + " )" + (all_optional ? "?" : "") + " \"}\"", false};
    }

    Expr array_type(const OJson &s, const std::string &ptr, int depth, const std::string &hint) {
        if (s.contains("uniqueItems") &&
            !(s["uniqueItems"].is_boolean() && !s["uniqueItems"].get<bool>()))
            bad(ptr, "unsupported keyword \"uniqueItems\"");
        const int64_t min = count(s, "minItems", ptr, 0);
        const int64_t max = count(s, "maxItems", ptr, -1);
        if (max >= 0 && min > max) bad(ptr, "minItems above maxItems");
        const OJson *items = s.contains("items") ? &s["items"] : nullptr;
        if (items && items->is_array())
            bad(ptr + "/items", "items as an array (draft 4 tuples): use prefixItems");
        if (items && !items->is_boolean() && !items->is_object())
            bad(ptr + "/items", "items must be a schema");
        std::vector<std::string> prefix;
        if (s.contains("prefixItems")) {
            const OJson &p = s["prefixItems"];
            if (!p.is_array()) bad(ptr + "/prefixItems", "prefixItems must be an array");
            for (size_t i = 0; i < p.size(); ++i)
                prefix.push_back(term(visit(p[i], ptr + "/prefixItems/" + std::to_string(i),
                                            depth + 1, nullptr, hint + "-" + std::to_string(i)),
                                      hint + "-" + std::to_string(i)));
        }
        // Items past the prefix: the items schema; none when it is false, or
        // when it is absent beside prefixItems.
        std::string item;
        if (items && !(items->is_boolean() && !items->get<bool>()))
            item = term(visit(*items, ptr + "/items", depth + 1, nullptr, hint + "-item"),
                        hint + "-item");
        else if (!items && prefix.empty())
            item = use("value");
        const int64_t n = int64_t(prefix.size());
        if (max >= 0 && max < n) bad(ptr, "maxItems below the number of prefixItems");
        const int64_t extra_min = std::max<int64_t>(0, min - n);
        const int64_t extra_max = item.empty() ? 0 : (max < 0 ? -1 : max - n);
        if (extra_min > 0 && item.empty()) bad(ptr, "minItems needs more items than allowed");
        if (n > 0) {
            std::string text = "\"[\"";
            for (int64_t i = 0; i < n; ++i)
                text += (i ? " \",\" " : " ") + prefix[size_t(i)];
            const std::string more = repeat("( \",\" " + item + " )", extra_min, extra_max);
            return {text + (more.empty() ? "" : " " + more) + " \"]\"", false};
        }
        if (extra_max == 0) return {literal("[]"), true};
        const std::string rest =
            repeat("( \",\" " + item + " )", std::max<int64_t>(0, min - 1), max < 0 ? -1 : max - 1);
        const std::string list = item + (rest.empty() ? "" : " " + rest);
        if (min == 0) return {"\"[\" ( " + list + " )? \"]\"", false};
        return {"\"[\" " + list + " \"]\"", false};
    }

    static bool has_type(const OJson &v, const std::string &t) {
        if (t == "null") return v.is_null();
        if (t == "boolean") return v.is_boolean();
        if (t == "string") return v.is_string();
        if (t == "object") return v.is_object();
        if (t == "array") return v.is_array();
        if (t == "number") return v.is_number();
        if (t == "integer")
            return v.is_number_integer() ||
                   (v.is_number_float() && v.get<double>() == std::floor(v.get<double>()));
        return false;
    }

    Expr enum_values(const OJson &s, const std::string &ptr) {
        const auto others = constraints(s, {"enum", "const", "type"});
        if (!others.empty()) bad(ptr, "\"" + others[0] + "\" beside enum/const is not supported");
        if (s.contains("enum") && s.contains("const")) bad(ptr, "both enum and const");
        OJson values = OJson::array();
        if (s.contains("const")) {
            values.push_back(s["const"]);
        } else {
            if (!s["enum"].is_array() || s["enum"].empty())
                bad(ptr + "/enum", "enum must be a non-empty array");
            values = s["enum"];
        }
        std::vector<std::string> types;
        if (s.contains("type")) {
            const OJson &t = s["type"];
            if (t.is_string()) types.push_back(t.get<std::string>());
            if (t.is_array())
                for (const OJson &one : t)
                    if (one.is_string()) types.push_back(one.get<std::string>());
            if (types.empty()) bad(ptr + "/type", "type must name JSON types");
        }
        std::string text;
        size_t kept = 0;
        for (const OJson &v : values) {
            bool fits = types.empty();
            for (const std::string &t : types)
                fits = fits || has_type(v, t);
            if (!fits) continue;
            text += (kept++ ? " | " : "") + literal(compact_json(v));
        }
        if (kept == 0) bad(ptr, "no enum/const value has the schema's type");
        return {text, kept == 1};
    }

    const OJson &resolve(const std::string &ref, const std::string &ptr, std::string &target) {
        if (ref.empty() || ref[0] != '#')
            bad(ptr,
                "$ref \"" + ref + "\": only references inside the schema (#/...) are supported");
        target = ref.substr(1);
        if (!target.empty() && target[0] != '/')
            bad(ptr, "$ref \"" + ref + "\": not a JSON pointer");
        const OJson *node = &root_;
        size_t pos = 0;
        while (pos < target.size()) {
            size_t next = target.find('/', pos + 1);
            if (next == std::string::npos) next = target.size();
            std::string token;
            for (size_t i = pos + 1; i < next; ++i) {
                if (target[i] == '~' && i + 1 < next &&
                    (target[i + 1] == '0' || target[i + 1] == '1')) {
                    token += target[i + 1] == '0' ? '~' : '/';
                    ++i;
                } else {
                    token += target[i];
                }
            }
            if (node->is_object() && node->contains(token)) {
                node = &(*node)[token];
            } else if (node->is_array() && !token.empty() && token.size() < 10 &&
                       token.find_first_not_of("0123456789") == std::string::npos &&
                       std::stoul(token) < node->size()) {
                node = &(*node)[std::stoul(token)];
            } else {
                bad(ptr, "$ref \"" + ref + "\" does not resolve");
            }
            pos = next;
        }
        return *node;
    }

    std::string ref(const OJson &value, const std::string &ptr, int depth,
                    std::set<std::string> *head) {
        if (!value.is_string()) bad(ptr + "/$ref", "$ref must be a string");
        std::string target;
        const OJson &node = resolve(value.get<std::string>(), ptr, target);
        if (head) head->insert(target);
        auto found = refs_.find(target);
        if (found != refs_.end()) return found->second;
        const size_t slash = target.rfind('/');
        const std::string name = new_rule("ref-" + target.substr(slash + 1));
        refs_[target] = name;
        const Expr e = visit(node, target, depth + 1, &head_refs_[target], name);
        define(name, e.text);
        return name;
    }

    // allOf of object schemas (directly or through $refs): one object with
    // the properties of all, required by any, closed if any is closed.
    Expr all_of(const OJson &s, const std::string &ptr, int depth, std::set<std::string> *head,
                const std::string &hint) {
        std::vector<const OJson *> parts;
        std::deque<OJson> rest_copies; // (parts point into it)
        collect(s, ptr, depth, parts, rest_copies);
        OJson merged = OJson::object();
        merged["type"] = "object";
        OJson props = OJson::object(), required = OJson::array();
        bool closed = false;
        std::set<std::string> allowed;
        for (const OJson *p : parts) {
            for (const auto &kv : p->items()) {
                const std::string &k = kv.key();
                if (is_annotation(k) || k == "properties" || k == "required" ||
                    k == "additionalProperties")
                    continue;
                if (k == "type" && kv.value() == "object") continue;
                bad(ptr + "/allOf",
                    "allOf is supported for object schemas only (found \"" + k + "\")");
            }
            if (p->contains("properties")) {
                const OJson &pp = (*p)["properties"];
                if (!pp.is_object()) bad(ptr + "/allOf", "properties must be an object");
                for (const auto &kv : pp.items()) {
                    if (props.contains(kv.key()) && props[kv.key()] != kv.value())
                        bad(ptr + "/allOf",
                            "property \"" + kv.key() + "\" differs between allOf parts");
                    props[kv.key()] = kv.value();
                }
            }
            if (p->contains("required")) {
                const OJson &r = (*p)["required"];
                if (!r.is_array()) bad(ptr + "/allOf", "required must be an array of names");
                for (const OJson &name : r)
                    if (std::find(required.begin(), required.end(), name) == required.end())
                        required.push_back(name);
            }
            // A closed part allows only its own properties, whatever the
            // other parts list.
            if (p->contains("additionalProperties") && (*p)["additionalProperties"] == false) {
                std::set<std::string> names;
                if (p->contains("properties") && (*p)["properties"].is_object())
                    for (const auto &kv : (*p)["properties"].items())
                        names.insert(kv.key());
                if (closed) {
                    std::set<std::string> both;
                    for (const std::string &k : allowed)
                        if (names.count(k)) both.insert(k);
                    allowed = both;
                } else {
                    allowed = names;
                }
                closed = true;
            }
        }
        if (closed) {
            OJson kept = OJson::object();
            for (const auto &kv : props.items())
                if (allowed.count(kv.key())) kept[kv.key()] = kv.value();
            for (const OJson &name : required)
                if (!name.is_string() || !allowed.count(name.get<std::string>()))
                    bad(ptr + "/allOf", "allOf: required property " + compact_json(name) +
                                            " is excluded by a part's additionalProperties false");
            props = kept;
            merged["additionalProperties"] = false;
        }
        merged["properties"] = props;
        merged["required"] = required;
        (void)head;
        return object_type(merged, ptr, depth, hint);
    }

    void collect(const OJson &s, const std::string &ptr, int depth,
                 std::vector<const OJson *> &parts, std::deque<OJson> &copies) {
        if (depth > kMaxSchemaDepth || ++visits_ > kMaxVisits)
            bad(ptr, "allOf nested too deeply or too large");
        if (!s.is_object()) bad(ptr, "allOf parts must be object schemas");
        if (s.contains("$ref")) {
            const auto others = constraints(s, {"$ref"});
            if (!others.empty()) bad(ptr, "\"$ref\" beside \"" + others[0] + "\" is not supported");
            if (!s["$ref"].is_string()) bad(ptr + "/$ref", "$ref must be a string");
            std::string target;
            const OJson &node = resolve(s["$ref"].get<std::string>(), ptr, target);
            collect(node, target, depth + 1, parts, copies);
            return;
        }
        if (!s.contains("allOf")) {
            parts.push_back(&s);
            return;
        }
        const OJson &list = s["allOf"];
        if (!list.is_array() || list.empty())
            bad(ptr + "/allOf", "allOf must be a non-empty array");
        for (size_t i = 0; i < list.size(); ++i)
            collect(list[i], ptr + "/allOf/" + std::to_string(i), depth + 1, parts, copies);
        if (!constraints(s, {"allOf"}).empty()) {
            copies.push_back(s);
            copies.back().erase("allOf");
            parts.push_back(&copies.back());
        }
    }

    void check_ref_cycles() {
        // Depth-first search over head_refs_: a cycle is a left recursion.
        std::map<std::string, int> state; // 1 on the stack, 2 done
        std::vector<std::pair<std::string, std::set<std::string>::const_iterator>> stack;
        for (const auto &start : head_refs_) {
            if (state[start.first]) continue;
            state[start.first] = 1;
            stack.push_back({start.first, start.second.begin()});
            while (!stack.empty()) {
                auto &top = stack.back();
                const std::set<std::string> &next = head_refs_[top.first];
                if (top.second == next.end()) {
                    state[top.first] = 2;
                    stack.pop_back();
                    continue;
                }
                const std::string to = *top.second++;
                if (state[to] == 1) bad(to, "$ref cycle that consumes no input (left recursion)");
                if (state[to] == 0) {
                    state[to] = 1;
                    stack.push_back({to, head_refs_[to].begin()});
                }
            }
        }
    }
};

} // namespace

std::string json_schema_to_gbnf(const std::string &schema_json) {
    const OJson schema = parse_schema(schema_json);
    try {
        return Converter(schema).run();
    } catch (const OJson::exception &e) {
        fail(LLM_ERR_GRAMMAR, "json schema: ", e.what());
    }
}

} // namespace llm
