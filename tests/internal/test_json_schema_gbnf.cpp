// JSON Schema -> GBNF (src/grammar/json_schema_gbnf.*): the grammar text for
// small schemas, the errors for what is not supported, and (through the
// GBNF parser and matcher) which JSON texts the grammars accept.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/error.h"
#include "grammar/json_schema_gbnf.h"

#if __has_include("grammar/grammar_matcher.h")
#include "grammar/gbnf_parser.h"
#include "grammar/grammar_matcher.h"
#define LLM_HAVE_GRAMMAR_MATCHER 1
#endif

namespace {

using llm::json_schema_to_gbnf;

// The message of the LLM_ERR_GRAMMAR error `schema` must raise.
std::string error_of(const std::string &schema) {
    try {
        json_schema_to_gbnf(schema);
    } catch (const llm::Error &e) {
        CHECK(e.status() == LLM_ERR_GRAMMAR);
        return e.what();
    }
    FAIL("no error for: " << schema);
    return "";
}

bool contains(const std::string &text, const std::string &part) {
    return text.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("json schema: primitive types", "[json_schema]") {
    CHECK(json_schema_to_gbnf(R"({"type": "boolean"})") == "root ::= boolean\n"
                                                           "boolean ::= \"true\" | \"false\"\n");
    CHECK(json_schema_to_gbnf(R"({"type": "null"})") == "root ::= null\nnull ::= \"null\"\n");
    CHECK(json_schema_to_gbnf(R"({"type": "integer"})") ==
          "root ::= integer\ninteger ::= \"-\"? ( \"0\" | [1-9] [0-9]{0,14} )\n");
    const std::string s = json_schema_to_gbnf(R"({"type": "string"})");
    CHECK(contains(s, "root ::= string\n"));
    CHECK(contains(s, "string ::= \"\\\"\" char* \"\\\"\"\n"));
    CHECK(contains(
        s, "char ::= [^\"\\\\\\x00-\\x1f\\uD800-\\uDFFF] | \"\\\\\" ( [\"\\\\/bfnrt] | \"u\""));
    // The empty schema and true: any JSON value.
    CHECK(contains(json_schema_to_gbnf("{}"), "root ::= value\n"));
    CHECK(contains(json_schema_to_gbnf("true"), "root ::= value\n"));
}

TEST_CASE("json schema: objects keep the property order, optional ones may be left out",
          "[json_schema]") {
    CHECK(json_schema_to_gbnf(
              R"({"type": "object", "properties": {"b": {"type": "null"}, "a": {"type": "null"}},
                  "required": ["b", "a"]})") ==
          "root ::= \"{\" \"\\\"b\\\":\" null \",\" \"\\\"a\\\":\" null \"}\"\n"
          "null ::= \"null\"\n");
    CHECK(json_schema_to_gbnf(
              R"({"properties": {"x": {"type": "null"}, "y": {"type": "boolean"}},
                  "required": ["y"]})") ==
          "root ::= \"{\" ( \"\\\"x\\\":\" null ( \",\" \"\\\"y\\\":\" boolean ) | "
          "\"\\\"y\\\":\" boolean ) \"}\"\n"
          "null ::= \"null\"\n"
          "boolean ::= \"true\" | \"false\"\n");
    // Nothing required: the empty object too.
    const std::string all_optional = json_schema_to_gbnf(
        R"({"properties": {"p": {"const": 1}, "q": {"const": 2}, "r": {"const": 3}}})");
    CHECK(contains(all_optional, "root ::= \"{\" ( \"\\\"p\\\":\" \"1\" root-after-0 | "
                                 "\"\\\"q\\\":\" \"2\" ( \",\" \"\\\"r\\\":\" \"3\" )? | "
                                 "\"\\\"r\\\":\" \"3\" )? \"}\"\n"));
    CHECK(contains(all_optional, "root-after-0 ::= ( \",\" \"\\\"q\\\":\" \"2\" )? ( \",\" "
                                 "\"\\\"r\\\":\" \"3\" )?\n"));
    CHECK(json_schema_to_gbnf(R"({"type": "object", "additionalProperties": false})") ==
          "root ::= \"{}\"\n");
    // A property whose schema is false must be absent.
    CHECK(json_schema_to_gbnf(R"({"properties": {"a": false, "b": {"const": 1}}})") ==
          "root ::= \"{\" ( \"\\\"b\\\":\" \"1\" )? \"}\"\n");
    CHECK(json_schema_to_gbnf(R"({"properties": {"a": false}})") == "root ::= \"{}\"\n");
    CHECK(contains(error_of(R"({"properties": {"a": false}, "required": ["a"]})"),
                   "required property with the schema false at #/properties/a"));
    // Property names are JSON-escaped, then GBNF-escaped.
    CHECK(contains(json_schema_to_gbnf(
                       R"({"properties": {"q\"\\é": {"type": "null"}}, "required": ["q\"\\é"]})"),
                   "\"\\\"q\\\\\\\"\\\\\\\\é\\\":\" null"));
}

TEST_CASE("json schema: arrays", "[json_schema]") {
    CHECK(json_schema_to_gbnf(R"({"type": "array", "items": {"type": "null"}})") ==
          "root ::= \"[\" ( null ( \",\" null )* )? \"]\"\nnull ::= \"null\"\n");
    CHECK(json_schema_to_gbnf(
              R"({"type": "array", "items": {"type": "null"}, "minItems": 2, "maxItems": 4})") ==
          "root ::= \"[\" null ( \",\" null ){1,3} \"]\"\nnull ::= \"null\"\n");
    CHECK(contains(
        json_schema_to_gbnf(R"({"type": "array", "items": {"type": "null"}, "maxItems": 0})"),
        "root ::= \"[]\"\n"));
    CHECK(json_schema_to_gbnf(
              R"({"prefixItems": [{"type": "null"}, {"type": "boolean"}], "items": false})") ==
          "root ::= \"[\" null \",\" boolean \"]\"\n"
          "null ::= \"null\"\n"
          "boolean ::= \"true\" | \"false\"\n");
}

TEST_CASE("json schema: strings, formats, enums, integer ranges", "[json_schema]") {
    CHECK(contains(json_schema_to_gbnf(R"({"type": "string", "minLength": 2, "maxLength": 5})"),
                   "root ::= \"\\\"\" char{2,5} \"\\\"\"\n"));
    CHECK(contains(json_schema_to_gbnf(R"({"type": "string", "format": "uuid"})"),
                   "root ::= uuid-string\n"));
    CHECK(json_schema_to_gbnf(R"({"enum": ["a\"", 1.5, null, [true]]})") ==
          "root ::= \"\\\"a\\\\\\\"\\\"\" | \"1.5\" | \"null\" | \"[true]\"\n");
    CHECK(json_schema_to_gbnf(R"({"type": "string", "enum": ["x", 2]})") ==
          "root ::= \"\\\"x\\\"\"\n");
    CHECK(json_schema_to_gbnf(R"({"const": {"k": "v"}})") ==
          "root ::= \"{\\\"k\\\":\\\"v\\\"}\"\n");
    CHECK(json_schema_to_gbnf(R"({"type": "integer", "minimum": 0, "maximum": 120})") ==
          "root ::= [0-9] | [1-9] [0-9] | \"1\" [0-1] [0-9] | \"1\" \"2\" \"0\"\n");
    CHECK(json_schema_to_gbnf(R"({"type": "integer", "minimum": -5, "exclusiveMaximum": 3})") ==
          "root ::= \"-\" [1-5] | [0-2]\n");
    CHECK(contains(json_schema_to_gbnf(R"({"type": ["string", "null"]})"),
                   "root ::= string | null\n"));
    CHECK(contains(json_schema_to_gbnf(R"({"type": "number", "nullable": true})"),
                   "root ::= number | null\n"));
}

TEST_CASE("json schema: $ref, recursion, anyOf, allOf", "[json_schema]") {
    const std::string tree = json_schema_to_gbnf(R"({
        "$ref": "#/$defs/node",
        "$defs": {"node": {"type": "object", "properties": {
            "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}}, "required": ["kids"]}}})");
    CHECK(contains(tree, "root ::= ref-node\n"));
    CHECK(contains(tree, "ref-node ::= \"{\" \"\\\"kids\\\":\" ref-node-kids \"}\"\n"));
    CHECK(contains(tree, "ref-node-kids ::= \"[\" ( ref-node ( \",\" ref-node )* )? \"]\"\n"));
    CHECK(contains(json_schema_to_gbnf(R"({"definitions": {"a~/b": {"type": "null"}},
                                           "$ref": "#/definitions/a~0~1b"})"),
                   "root ::= ref-a-0-1b\nref-a-0-1b ::= null\n"));
    CHECK(json_schema_to_gbnf(R"({"anyOf": [{"const": 1}, {"type": "boolean"}]})") ==
          "root ::= \"1\" | boolean\nboolean ::= \"true\" | \"false\"\n");
    CHECK(json_schema_to_gbnf(R"({"allOf": [
            {"properties": {"a": {"const": 1}}, "required": ["a"]},
            {"properties": {"b": {"const": 2}}, "required": ["b"]}]})") ==
          "root ::= \"{\" \"\\\"a\\\":\" \"1\" \",\" \"\\\"b\\\":\" \"2\" \"}\"\n");
    // Recursion through the root.
    CHECK(contains(json_schema_to_gbnf(R"({"type": "array", "items": {"$ref": "#"}})"),
                   "root ::= \"[\" ( root ( \",\" root )* )? \"]\"\n"));
}

TEST_CASE("json schema: unsupported keywords and bad schemas are reported", "[json_schema]") {
    CHECK(error_of(R"({"type": "string", "pattern": "^a$"})") ==
          "json schema: unsupported keyword \"pattern\" at #");
    CHECK(error_of(R"({"properties": {"a/b": {"not": {}}}})") ==
          "json schema: unsupported keyword \"not\" at #/properties/a~1b");
    CHECK(contains(error_of(R"({"type": "string", "format": "email"})"),
                   "unsupported format \"email\" at #/format"));
    CHECK(contains(error_of(R"({"type": "number", "maximum": 3})"), "\"maximum\" on a number"));
    CHECK(contains(error_of(R"({"type": "array", "uniqueItems": true})"), "uniqueItems"));
    CHECK(contains(error_of(R"({"type": "strin"})"), "unknown type \"strin\" at #/type"));
    CHECK(contains(error_of(R"({"$ref": "#/$defs/missing"})"), "does not resolve"));
    CHECK(contains(error_of(R"({"$ref": "https://example.com/s.json"})"), "only references"));
    CHECK(contains(error_of(R"({"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/a"}}})"),
                   "consumes no input"));
    CHECK(
        contains(error_of(R"({"anyOf": [{"type": "null"}, {"$ref": "#"}]})"), "consumes no input"));
    CHECK(contains(error_of(R"({"type": "string", "maxLength": 100000})"), "maxLength above"));
    CHECK(contains(error_of(R"({"type": "string", "minLength": 3, "maxLength": 2})"),
                   "minLength above maxLength"));
    CHECK(contains(error_of(R"({"required": ["x"], "properties": {}})"), "not in properties"));
    CHECK(contains(error_of(R"({"type": "integer", "minimum": 5, "maximum": 4})"), "no integer"));
    CHECK(contains(error_of(R"({"enum": []})"), "non-empty"));
    // additionalProperties false in one allOf part closes the object to that
    // part's properties (the well-known allOf pitfall, as validators see it).
    CHECK(contains(error_of(R"({"allOf": [{"properties": {"a": {}}, "required": ["a"]},
                                          {"properties": {"b": {}}, "additionalProperties": false}]})"),
                   "required property \"a\" is excluded"));
    CHECK(contains(error_of("false"), "accepts nothing"));
    CHECK(contains(error_of("[1, 2]"), "must be an object or a boolean"));
    CHECK(contains(error_of("{\"type\": "), "invalid JSON"));
    CHECK(contains(error_of(R"({"type": "null", "type": "string"})"), "duplicate JSON key"));
    CHECK(contains(error_of(std::string(200, '[') + std::string(200, ']')), "nested deeper"));
    std::string deep = "true";
    for (int i = 0; i < 70; ++i)
        deep = "{\"items\": " + deep + "}";
    CHECK(contains(error_of(deep), "nested deeper"));
}

#ifdef LLM_HAVE_GRAMMAR_MATCHER
namespace {

// Whether the grammar of `schema` accepts all of `json` as a sentence.
bool accepts(const std::string &schema, const std::string &json) {
    auto grammar = llm::grammar::parse_gbnf(json_schema_to_gbnf(schema));
    llm::grammar::GrammarMatcher m(grammar);
    return m.accept_bytes(json) && m.can_end();
}

} // namespace

TEST_CASE("json schema: the grammars accept valid instances and refuse invalid ones",
          "[json_schema]") {
    const std::string person = R"({"type": "object", "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 8},
        "age": {"type": "integer", "minimum": 0, "maximum": 150},
        "email": {"type": ["string", "null"]},
        "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "maxItems": 2}},
        "required": ["name", "tags"], "additionalProperties": false})";
    CHECK(accepts(person, R"({"name":"Ann","tags":[]})"));
    CHECK(accepts(person, R"({"name":"Ünï😀\n\u00e9","age":150,"email":null,"tags":["b","a"]})"));
    CHECK(accepts(person, R"({"name":"x","email":"e","tags":["a"]})"));
    CHECK_FALSE(accepts(person, R"({"tags":[],"name":"Ann"})"));             // order
    CHECK_FALSE(accepts(person, R"({"name":"Ann"})"));                       // required
    CHECK_FALSE(accepts(person, R"({"name":"","tags":[]})"));                // minLength
    CHECK_FALSE(accepts(person, R"({"name":"123456789","tags":[]})"));       // maxLength
    CHECK_FALSE(accepts(person, R"({"name":"A","age":151,"tags":[]})"));     // maximum
    CHECK_FALSE(accepts(person, R"({"name":"A","age":-1,"tags":[]})"));      // minimum
    CHECK_FALSE(accepts(person, R"({"name":"A","age":07,"tags":[]})"));      // leading zero
    CHECK_FALSE(accepts(person, R"({"name":"A","tags":["a","b","a"]})"));    // maxItems
    CHECK_FALSE(accepts(person, R"({"name":"A","tags":["c"]})"));            // enum
    CHECK_FALSE(accepts(person, R"({"name":"A","tags":[],"x":1})"));         // extra property
    CHECK_FALSE(accepts(person, R"({"name": "A","tags":[]})"));              // whitespace
    CHECK_FALSE(accepts(person, "{\"name\":\"a\tb\",\"tags\":[]}"));         // control character
    CHECK_FALSE(accepts(person, R"({"name":"\ud800","tags":[]})"));          // surrogate escape
    CHECK_FALSE(accepts(person, "{\"name\":\"\xed\xa0\x80\",\"tags\":[]}")); // raw surrogate
    CHECK_FALSE(accepts(person, R"({"name":"A","tags":[])"));                // unterminated

    const std::string numbers = R"({"type": "array", "items": {"type": "number"}})";
    CHECK(accepts(numbers, "[0,-1,3.25,1e5,-2.5E-07,6.02e+23]"));
    CHECK_FALSE(accepts(numbers, "[01]"));
    CHECK_FALSE(accepts(numbers, "[1.]"));
    CHECK_FALSE(accepts(numbers, "[.5]"));
    CHECK_FALSE(accepts(numbers, "[1e]"));
    CHECK_FALSE(accepts(numbers, "[1e999]"));
    CHECK_FALSE(accepts(numbers, "[+1]"));

    const std::string formats = R"({"prefixItems": [{"format": "date"}, {"format": "time"},
        {"format": "date-time"}, {"format": "uuid"}], "items": false})";
    CHECK(accepts(formats, R"(["2024-02-28","23:59:59Z","1999-12-31T00:00:00.123+05:30",)"
                           R"("123e4567-e89b-12d3-a456-426614174000"])"));
    CHECK_FALSE(accepts(formats, R"(["2024-02-30","23:59:59Z","1999-12-31T00:00:00Z",)"
                                 R"("123e4567-e89b-12d3-a456-426614174000"])"));
    CHECK_FALSE(accepts(formats, R"(["2024-04-31","24:00:00Z","1999-12-31T00:00:00Z",)"
                                 R"("123e4567-e89b-12d3-a456-426614174000"])"));
    CHECK_FALSE(accepts(formats, R"(["2024-01-01","12:00:00","1999-12-31T00:00:00Z",)"
                                 R"("123e4567-e89b-12d3-a456-426614174000"])"));

    const std::string tree = R"({"$defs": {"t": {"anyOf": [{"type": "integer"},
        {"type": "array", "items": {"$ref": "#/$defs/t"}, "maxItems": 3}]}}, "$ref": "#/$defs/t"})";
    CHECK(accepts(tree, "[1,[2,[3,[]]],-4]"));
    CHECK_FALSE(accepts(tree, "[1,2,3,4]"));
    CHECK_FALSE(accepts(tree, "[\"x\"]"));

    const std::string range = R"({"type": "integer", "minimum": -1234, "maximum": 98765})";
    for (int v : {-1234, -999, -100, -10, -1, 0, 9, 10, 99, 100, 9999, 10000, 98765, 98699})
        CHECK(accepts(range, std::to_string(v)));
    for (int v : {-1235, -2000, 98766, 99999, 100000})
        CHECK_FALSE(accepts(range, std::to_string(v)));
    CHECK_FALSE(accepts(range, "-0"));
}

// Random walks through the matcher for each corpus schema of
// tests/structured_oracle, written as gen_structured writes model outputs,
// for check_structured.js to validate with ajv (CTest structured_oracle.walk,
// which sets the two variables). Each step takes a random byte the grammar
// allows, a closing byte more often, so that walks end; a walk ends where
// the JSON may end with probability 1/4, and must when nothing can follow.
TEST_CASE("json schema: random walks through the corpus grammars", "[.][structured_walk]") {
    const char *corpus = std::getenv("LLM_STRUCTURED_CORPUS");
    const char *out_path = std::getenv("LLM_STRUCTURED_WALK_OUT");
    REQUIRE(corpus);
    REQUIRE(out_path);
    std::vector<std::filesystem::path> files;
    for (const auto &entry : std::filesystem::directory_iterator(corpus))
        if (entry.path().extension() == ".json") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    REQUIRE(files.size() >= 20);
    std::ofstream out(out_path, std::ios::binary);
    REQUIRE(out);
    for (const auto &file : files) {
        std::ifstream in(file, std::ios::binary);
        std::stringstream schema;
        schema << in.rdbuf();
        auto grammar = llm::grammar::parse_gbnf(json_schema_to_gbnf(schema.str()));
        for (int seed = 1; seed <= 40; ++seed) {
            std::mt19937 rng(static_cast<unsigned>(seed));
            llm::grammar::GrammarMatcher m(grammar);
            std::string text;
            bool ended = false;
            while (text.size() < 4000) {
                if (m.can_end() && (!m.can_continue() || rng() % 4 == 0)) {
                    ended = true;
                    break;
                }
                std::vector<uint8_t> allowed;
                for (int b = 0; b < 256; ++b) {
                    llm::grammar::MatchState next;
                    if (m.advance(m.state(), static_cast<uint8_t>(b), next))
                        allowed.push_back(static_cast<uint8_t>(b));
                }
                if (allowed.empty()) break; // a dead end: reported as not ended
                uint8_t b = allowed[rng() % allowed.size()];
                if (rng() % 3 == 0)
                    for (uint8_t c : allowed)
                        if (c == '"' || c == '}' || c == ']' || c == ',') {
                            b = c;
                            break;
                        }
                REQUIRE(m.accept_byte(b));
                text += static_cast<char>(b);
            }
            out << "{\"schema\": \"" << file.filename().string() << "\", \"seed\": " << seed
                << ", \"terminated\": " << (ended ? "true" : "false")
                << ", \"tokens\": " << text.size() << ", \"output_hex\": \"";
            for (unsigned char c : text) {
                char hex[3];
                std::snprintf(hex, sizeof hex, "%02x", c);
                out << hex;
            }
            out << "\"}\n";
        }
    }
    REQUIRE(out.good());
}
#endif
