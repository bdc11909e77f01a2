// The grammar matcher on strings (UTF-8 classes included), and the token
// trie's masks against brute force over a real vocabulary.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "common/error.h"
#include "grammar/gbnf_parser.h"
#include "grammar/grammar_matcher.h"
#include "grammar/token_trie.h"
#include "support/test_support.h"
#include "tokenizer/hf_tokenizer.h"

using namespace llm::grammar;

namespace {

const char *kJson = R"(
root   ::= value
value  ::= object | array | string | number | ("true" | "false" | "null")
object ::= "{" ws ( string ws ":" ws value ws ( "," ws string ws ":" ws value ws )* )? "}"
array  ::= "[" ws ( value ws ( "," ws value ws )* )? "]"
string ::= "\"" ( [^"\\\x00-\x1f] | "\\" ["\\/bfnrt] | "\\u" [0-9a-fA-F]{4} )* "\""
number ::= "-"? ([0-9] | [1-9] [0-9]{1,15}) ("." [0-9]+)? ([eE] [-+]? [0-9]+)?
ws     ::= [ \t\n]{0,4}
)";

bool full_match(const std::shared_ptr<const Grammar> &g, const std::string &text) {
    GrammarMatcher m(g);
    return m.accept_bytes(text) && m.can_end();
}

bool prefix_ok(const std::shared_ptr<const Grammar> &g, const std::string &text) {
    GrammarMatcher m(g);
    return m.accept_bytes(text);
}

} // namespace

TEST_CASE("grammar matcher: accepts the language and nothing else", "[grammar]") {
    auto json = parse_gbnf(kJson);
    for (const char *ok : {"{}", "[]", "{\"a\": [1, 2.5, -3e+2, true, null]}", "\"x\\u00e9\"",
                           "[{\"k\":\"v\"},[],\"\"]", "0", "-12.5E3"}) {
        INFO(ok);
        CHECK(full_match(json, ok));
    }
    for (const char *bad : {"{", "[1,]", "{\"a\"}", "01", "tru", "\"\\x\"", "[1 2]", "nul"}) {
        INFO(bad);
        CHECK_FALSE(full_match(json, bad));
    }
    CHECK(prefix_ok(json, "{\"a\": [1, "));
    CHECK_FALSE(prefix_ok(json, "{\"a\": [1, ]"));

    GrammarMatcher m(json);
    CHECK_FALSE(m.can_end());
    CHECK(m.accept_byte('['));
    CHECK_FALSE(m.accept_byte(']' + 1));
    CHECK(m.accept_byte(']'));
    CHECK(m.can_end());
    CHECK(m.is_accepting());
    CHECK_FALSE(m.can_continue()); // ws after the value is not in this grammar
    m.reset();
    CHECK(m.accept_bytes("1"));
    CHECK(m.can_end());
    CHECK(m.can_continue());
    // All or nothing.
    CHECK_FALSE(m.accept_bytes("23x"));
    CHECK(m.accept_bytes("23"));
}

TEST_CASE("grammar matcher: classes are over code points", "[grammar]") {
    auto g = parse_gbnf("root ::= [\xCE\xB1-\xCF\x89]+ \"\xE2\x82\xAC\"? [^a]");
    CHECK(full_match(g, "\xCE\xB1\xCE\xB2\xCF\x89z"));
    CHECK(full_match(g, "\xCE\xB1\xE2\x82\xAC\xF0\x9F\x98\x80"));
    CHECK_FALSE(full_match(g, "\xCE\xB1"
                              "a"));
    CHECK_FALSE(full_match(g, "\xCF\x8A"
                              "z")); // just above omega
    GrammarMatcher m(g);
    // A lead byte that cannot start any allowed code point is refused at
    // once; a partial one keeps the state open.
    CHECK_FALSE(m.accept_byte(0xE0));
    CHECK_FALSE(m.accept_byte('a'));
    CHECK(m.accept_byte(0xCE));
    CHECK_FALSE(m.can_end());
    CHECK_FALSE(m.accept_byte(0x80)); // U+0380, below alpha
    CHECK(m.accept_byte(0xB1));
    // Invalid UTF-8: overlong, surrogate, stray continuation.
    CHECK_FALSE(prefix_ok(parse_gbnf("root ::= .*"), "\xC0\x80"));
    CHECK_FALSE(prefix_ok(parse_gbnf("root ::= .*"), "\xED\xA0\x80"));
    CHECK_FALSE(prefix_ok(parse_gbnf("root ::= .*"), "\x80"));
    CHECK(prefix_ok(parse_gbnf("root ::= .*"), "\xF4\x8F\xBF\xBF"));
    CHECK_FALSE(prefix_ok(parse_gbnf("root ::= .*"), "\xF4\x90\x80\x80"));
}

TEST_CASE("grammar matcher: deep nesting and ambiguity stay bounded", "[grammar]") {
    auto json = parse_gbnf(kJson);
    GrammarMatcher m(json);
    // Nesting beyond the stack depth limit is refused, not a crash.
    std::string deep(5000, '[');
    CHECK_FALSE(m.accept_bytes(deep));
    CHECK(m.accept_bytes(std::string(100, '[') + std::string(100, ']')));
    CHECK(m.can_end());
    // Right recursion does not deepen the stacks.
    auto g = parse_gbnf("root ::= [a]*");
    GrammarMatcher r(g);
    CHECK(r.accept_bytes(std::string(100000, 'a')));
    for (const Stack &st : r.state().set->stacks)
        CHECK(st.size() <= 2);
    // A grammar whose ambiguity explodes fails with GRAMMAR.
    std::string amb = "root ::= x*\nx ::= ";
    for (int i = 0; i < 64; ++i)
        amb += std::string(i ? " | " : "") + "\"a\"{" + std::to_string(i % 8 + 1) + "}";
    auto a = parse_gbnf(amb);
    try {
        GrammarMatcher am(a);
        am.accept_bytes(std::string(64, 'a'));
    } catch (const llm::Error &e) {
        CHECK(e.status() == LLM_ERR_GRAMMAR);
    }
}

namespace {

// The allowed set by running the matcher over each token's bytes.
std::vector<uint8_t> brute_mask(const TokenTrie &trie, const GrammarMatcher &m) {
    std::vector<uint8_t> out(static_cast<size_t>(trie.n_vocab()), 0);
    for (int32_t id = 0; id < trie.n_vocab(); ++id) {
        if (trie.is_eog(id)) {
            out[static_cast<size_t>(id)] = m.can_end();
            continue;
        }
        const std::string &b = trie.bytes(id);
        if (b.empty()) continue;
        GrammarMatcher c = m;
        out[static_cast<size_t>(id)] = c.accept_bytes(b);
    }
    return out;
}

} // namespace

TEST_CASE("token trie: masks equal brute force on qwen2-tiny's vocabulary", "[grammar]") {
    auto tok = llm::load_hf_tokenizer(test::shared_path("models/qwen2-tiny/tokenizer.json"),
                                      test::shared_path("models/qwen2-tiny/tokenizer_config.json"));
    const int32_t n_vocab = tok->vocab_size() + 3; // padding rows beyond the tokenizer
    const std::vector<int32_t> eog{tok->eos()};
    auto bytes = TokenTrie::token_bytes(*tok, n_vocab, eog);
    TokenTrie trie(bytes, eog);
    CHECK(trie.bytes(n_vocab - 1).empty());

    struct Case {
        const char *gbnf;
        std::vector<std::string> prefixes;
    };
    const Case cases[] = {
        {kJson, {"", "{", "{\"", "{\"ab", "{\"a\": ", "{\"a\": [1", "[\"\xC3", "[true", "[]"}},
        {"root ::= [\xCE\xB1-\xCF\x89 ]+ \".\"", {"", "\xCE\xB1", "\xCE", "\xCE\xB1 "}},
        {"root ::= \"Hello, world\" | \"Help\" [0-9]+", {"", "He", "Hel", "Help", "Help1"}},
        {"root ::= ([a-z]+ \" \")* [A-Z]", {"", "the ", "the cat"}},
        {"root ::= [^\\x00-\\x7f]*", {"", "\xE4\xB8"}},
    };
    for (const Case &c : cases) {
        auto g = parse_gbnf(c.gbnf);
        for (const std::string &p : c.prefixes) {
            INFO(c.gbnf << " after '" << p << "'");
            GrammarMatcher m(g);
            REQUIRE(m.accept_bytes(p));
            std::vector<uint8_t> fast;
            const size_t n = trie.mask(m, m.state(), fast);
            const std::vector<uint8_t> slow = brute_mask(trie, m);
            size_t n_slow = 0, diff = 0;
            for (size_t i = 0; i < slow.size(); ++i) {
                n_slow += slow[i];
                diff += slow[i] != fast[i];
            }
            CHECK(diff == 0);
            CHECK(n == n_slow);
        }
    }
}
