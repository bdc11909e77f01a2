// The GBNF parser: what it accepts, and every kind of error with its
// line:column.
#include <catch2/catch.hpp>

#include <string>

#include "common/error.h"
#include "grammar/gbnf_parser.h"
#include "grammar/grammar_matcher.h"

using namespace llm::grammar;

namespace {

std::string error_of(const std::string &gbnf, const char *root = "root") {
    try {
        parse_gbnf(gbnf, root);
    } catch (const llm::Error &e) {
        CHECK(e.status() == LLM_ERR_GRAMMAR);
        return e.what();
    }
    return "";
}

bool matches(const std::string &gbnf, const std::string &text) {
    GrammarMatcher m(parse_gbnf(gbnf));
    return m.accept_bytes(text) && m.can_end();
}

} // namespace

TEST_CASE("gbnf: the notation's constructs parse", "[grammar]") {
    const char *good[] = {
        "root ::= \"a\"",
        "root ::= \"a\" | \"b\" # comment\n",
        "# leading comment\n\nroot ::= x y\nx ::= [a-z]+\ny ::= [^\\n]*\n",
        "root ::= (\"a\" | \"b\")* \"c\"? [0-9]{2} [0-9]{1,} [0-9]{0,3}",
        "root ::=\n  \"a\" |\n  \"b\"\n",
        "root ::= ( \"a\"\n   \"b\" )\n",
        "root ::= \"\\x41\\u00e9\\U0001F600\\n\\t\\\\\\\"\"",
        "root ::= [\\x00-\\x1f\\]\\-] .",
        "root ::= \"h\xC3\xA9llo\" [\xCE\xB1-\xCF\x89]",
        "root ::= \"\"",
        "root ::= a\na ::= \"x\" a | \"y\"",
        "root-rule_2 ::= [a]\nroot ::= root-rule_2",
    };
    for (const char *g : good) {
        INFO(g);
        CHECK_NOTHROW(parse_gbnf(g));
    }
    CHECK_NOTHROW(parse_gbnf("start ::= \"a\"", "start"));
}

TEST_CASE("gbnf: repetition counts and classes mean what they say", "[grammar]") {
    CHECK(matches("root ::= [0-9]{2}", "12"));
    CHECK_FALSE(matches("root ::= [0-9]{2}", "1"));
    CHECK_FALSE(matches("root ::= [0-9]{2}", "123"));
    CHECK(matches("root ::= [0-9]{1,3}", "123"));
    CHECK_FALSE(matches("root ::= [0-9]{1,3}", "1234"));
    CHECK(matches("root ::= \"ab\"{2,}", "ababab"));
    CHECK_FALSE(matches("root ::= \"ab\"{2,}", "ab"));
    CHECK(matches("root ::= (\"a\" | \"bc\")+", "abca"));
    CHECK(matches("root ::= [^a-c]", "d"));
    CHECK_FALSE(matches("root ::= [^a-c]", "b"));
    CHECK(matches("root ::= .", "\xE2\x82\xAC"));
    CHECK(matches("root ::= \"\\u20AC\"", "\xE2\x82\xAC"));
    CHECK(matches("root ::= [\\]]", "]"));
    CHECK(matches("root ::= [a-]", "-"));
    CHECK(matches("root ::= \"\"", ""));
    CHECK(matches("root ::= \"x\"?", ""));
}

TEST_CASE("gbnf: errors name the line and column", "[grammar]") {
    struct Case {
        const char *gbnf;
        const char *message;
    };
    const Case cases[] = {
        {"", "empty grammar"},
        {"# only a comment\n", "empty grammar"},
        {"rule ::= \"a\"", "no root rule 'root'"},
        {"root ::= foo", "1:10: undefined rule 'foo'"},
        {"root ::= \"a\"\n\nroot ::= \"b\"", "3:1: rule 'root' is defined twice"},
        {"root := \"a\"", "1:6: expected '::='"},
        {"root ::= \"abc", "1:14: expected '\"' closing the string"},
        {"root ::= [abc", "1:14: expected ']' closing the character class"},
        {"root ::= (\"a\"", "1:14: expected ')'"},
        {"root ::= \"a\" )", "1:14: expected an element, '|' or end of line"},
        {"root ::= *", "1:10: expected an item before '*'"},
        {"root ::= \"a\"{3,1}", "1:13: repetition {m,n} has n < m"},
        {"root ::= \"a\"{2", "1:15: expected '}'"},
        {"root ::= \"a\"{99999}", "above the limit"},
        {"root ::= [z-a]", "1:11: character range is reversed"},
        {"root ::= []", "1:10: empty character class"},
        {"root ::= \"\\q\"", "1:11: unknown escape '\\q'"},
        {"root ::= \"\\x4\"", "expected 2 hex digits"},
        {"root ::= \"\\U00110000\"", "beyond U+10FFFF"},
        {"root ::= \"\xFF\"", "1:11: invalid UTF-8"},
        {"root ::= root \"a\"", "left recursion: rule 'root'"},
        {"root ::= a\na ::= b \"x\"\nb ::= \"\" | a", "left recursion"},
        {"root ::= (\"a\"?)*", "repetition of something that can match nothing"},
        {"root ::= \"a\"\nfoo bar", "2:5: expected '::='"},
    };
    for (const Case &c : cases) {
        INFO(c.gbnf);
        const std::string msg = error_of(c.gbnf);
        INFO(msg);
        CHECK(msg.find(c.message) != std::string::npos);
    }
    CHECK(error_of("root ::= \"a\"", "start").find("no root rule 'start'") != std::string::npos);
}

TEST_CASE("gbnf: limits bound pathological grammars", "[grammar]") {
    std::string deep = "root ::= ";
    for (int i = 0; i < 200; ++i)
        deep += "(";
    deep += "\"a\"";
    for (int i = 0; i < 200; ++i)
        deep += ")";
    CHECK(error_of(deep).find("nested deeper") != std::string::npos);
    // Nested repetitions multiply: refused by the element limit, fast.
    CHECK(error_of("root ::= ((\"a\"{10000}){10000}){10000}").empty());
    CHECK(error_of("root ::= \"a\"{10000} \"b\"{10000} [c]{10000} [d]{10000} \"abcdefghij\"{10000}")
              .empty());
    std::string wide = "root ::= ";
    for (int i = 0; i < 250; ++i)
        wide += "\"aaaaaaaaaa\"{10000} ";
    CHECK(error_of(wide).find("grammar too large") != std::string::npos);
}
