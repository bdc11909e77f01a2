// JSON Schema -> GBNF (src/grammar/json_schema_gbnf.*) on arbitrary bytes as
// the schema. Every input must convert or fail with the grammar status and a
// message; nothing else (no crash, no other exception, no runaway time or
// memory). A grammar the converter returns must also be one the GBNF parser
// takes: it may refuse it only for its size limits, never for its syntax,
// an undefined rule or left recursion.
//
// Seeds: LLVMFuzzerInitialize writes a few schemas into a corpus folder
// named .../fuzz_json_schema that does not exist yet (make_corpus.py has no
// fuzz_json_schema part).
#include <sys/stat.h>

#include <cstring>
#include <fstream>
#include <string>

#include "common/error.h"
#include "fuzz_support.h"
#include "grammar/gbnf_parser.h"
#include "grammar/json_schema_gbnf.h"

namespace {

const char *kSeeds[] = {
    R"({"type": "object", "properties": {"name": {"type": "string", "maxLength": 16},
        "age": {"type": "integer", "minimum": 0, "maximum": 120},
        "tags": {"type": "array", "items": {"enum": ["a", "b", null, 1.5e3]}, "maxItems": 3}},
        "required": ["name"], "additionalProperties": false})",
    R"({"$defs": {"node": {"type": "object", "properties": {"v": {"type": "integer"},
        "next": {"anyOf": [{"type": "null"}, {"$ref": "#/$defs/node"}]}}, "required": ["v"]}},
        "$ref": "#/$defs/node"})",
    R"({"oneOf": [{"const": "x"}, {"type": ["number", "null"]}, {"type": "string",
        "format": "date-time"}, {"prefixItems": [{"type": "boolean"}, {"format": "uuid"}],
        "items": false}]})",
    R"({"definitions": {"a": {"properties": {"x": {"const": 1}}, "required": ["x"]}},
        "allOf": [{"$ref": "#/definitions/a"}, {"properties": {"y": {"type": "string",
        "minLength": 1, "maxLength": 4}}, "additionalProperties": false}]})",
    R"({"type": "object", "additionalProperties": {"type": "array", "items": {"$ref": "#"}},
        "nullable": true, "title": "t", "description": "d"})",
};

bool exists(const std::string &path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0;
}

bool is_limit(const char *message) {
    return std::strstr(message, "limit") || std::strstr(message, "too large") ||
           std::strstr(message, "too many") || std::strstr(message, "deeper");
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) {
    const std::string suffix = "/fuzz_json_schema";
    for (int k = 1; k < *argc; ++k) {
        const std::string a = (*argv)[k];
        if (a.empty() || a[0] == '-' || a.size() < suffix.size() ||
            a.compare(a.size() - suffix.size(), suffix.size(), suffix) != 0 || exists(a))
            continue;
        for (size_t slash = a.find('/', 1); slash != std::string::npos;
             slash = a.find('/', slash + 1))
            ::mkdir(a.substr(0, slash).c_str(), 0755);
        ::mkdir(a.c_str(), 0755);
        for (size_t s = 0; s < sizeof kSeeds / sizeof kSeeds[0]; ++s) {
            std::ofstream f(a + "/seed" + std::to_string(s), std::ios::binary);
            f << kSeeds[s];
        }
    }
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const std::string schema(reinterpret_cast<const char *>(data), size);
    std::string gbnf;
    try {
        gbnf = llm::json_schema_to_gbnf(schema);
    } catch (const llm::Error &e) {
        if (e.status() != LLM_ERR_GRAMMAR)
            fuzz::violation(std::string("json schema: unexpected status for: ") + e.what());
        if (std::strlen(e.what()) == 0) fuzz::violation("json schema: error without a message");
        return 0;
    } catch (const std::exception &e) {
        fuzz::violation(std::string("json schema: stray exception: ") + e.what());
    }
    try {
        llm::grammar::parse_gbnf(gbnf);
    } catch (const llm::Error &e) {
        if (e.status() != LLM_ERR_GRAMMAR || !is_limit(e.what()))
            fuzz::violation(std::string("json schema: the GBNF parser refuses the output: ") +
                            e.what() + "\n" + gbnf);
    }
    return 0;
}
