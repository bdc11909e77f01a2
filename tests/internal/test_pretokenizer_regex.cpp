// The pre-tokenizer regex engine: Oniguruma semantics on the constructs
// tokenizer.json patterns use, and clean rejection of everything else.
#include <catch2/catch.hpp>

#include "common/error.h"
#include "tokenizer/pretokenizer_regex.h"

namespace {
const char *const kQwen2 = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| "
                           "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

std::vector<std::string> matches(const std::string &pattern, const std::string &text) {
    llm::PretokenizerRegex re(pattern, "test.pattern");
    std::vector<std::pair<size_t, size_t>> m;
    re.find_all(text, m);
    std::vector<std::string> out;
    for (auto [a, b] : m)
        out.push_back(text.substr(a, b - a));
    return out;
}
using V = std::vector<std::string>;
} // namespace

TEST_CASE("Qwen2 pre-tokenizer pattern splits like Oniguruma", "[regex]") {
    CHECK(matches(kQwen2, "Hello world") == V{"Hello", " world"});
    CHECK(matches(kQwen2, "I'M here, you'Re") == V{"I", "'M", " here", ",", " you", "'Re"});
    CHECK(matches(kQwen2, "x'ſt") == V{"x", "'ſ", "t"}); // (?i) folds ſ to s, as Oniguruma
    CHECK(matches(kQwen2, "12345 apples") == V{"1", "2", "3", "4", "5", " apples"});
    CHECK(matches(kQwen2, "a   b") == V{"a", "  ", " b"}); // \s+(?!\S) leaves one space
    CHECK(matches(kQwen2, "a \n\n b") == V{"a", " \n\n", " b"});
    CHECK(matches(kQwen2, "end.\n\nNext") == V{"end", ".\n\n", "Next"});
    CHECK(matches(kQwen2, "  ") == V{"  "});
    CHECK(matches(kQwen2, "\t\tif x:") == V{"\t", "\tif", " x", ":"});
    CHECK(matches(kQwen2, "你好，世界") == V{"你好", "，世界"});
    CHECK(matches(kQwen2, "naïve café") == V{"naïve", " café"});
    CHECK(matches(kQwen2, "😀😀 ok") == V{"😀😀", " ok"});
    CHECK(matches(kQwen2, "a\xFF\xFE b") == V{"a", "\xFF\xFE", " b"}); // bytes that are not UTF-8
}

TEST_CASE("regex constructs", "[regex]") {
    CHECK(matches("\\p{N}{1,3}", "12345") == V{"123", "45"});
    CHECK(matches("a+?", "aaa") == V{"a", "a", "a"});
    CHECK(matches("a|ab", "ab") == V{"a"}); // leftmost-first, not longest
    CHECK(matches("ab|a", "ab") == V{"ab"});
    CHECK(matches("a(?=b)", "acab") == V{"a"});
    CHECK(matches("(?:ab)+", "ababxab") == V{"abab", "ab"});
    CHECK(matches("(ab){2}", "ababab") == V{"abab"});
    CHECK(matches("[a-c]+", "xabcabd") == V{"abcab"});
    CHECK(matches("(?i:[a-c]+)", "xAbCd") == V{"AbC"});
    CHECK(matches("[^\\s]+", "ab cd") == V{"ab", "cd"});
    CHECK(matches("\\d+", "a12٣4b") == V{"12٣4"}); // \d is Unicode Nd
    CHECK(matches("\\w+", "héllo_1 x") == V{"héllo_1", "x"});
    CHECK(matches("\\p{Lu}\\p{Ll}*", "HelloWorld") == V{"Hello", "World"});
    CHECK(matches("\\x41\\u0042\\x{1F600}", "AB😀") == V{"AB😀"});
    CHECK(matches(".", "a\nb") == V{"a", "b"});
    CHECK(matches("\\.\\*", "a.*b") == V{".*"});
    CHECK(matches("x*", "aaa").empty()); // empty matches are dropped
    CHECK(matches("\\s+(?!\\S)|\\s+", "a  ") == V{"  "});
}

TEST_CASE("unsupported regex syntax is rejected naming the field", "[regex]") {
    for (const char *p :
         {"^a",     "a$",          "(a)\\1",     "(?<n>a)",     "(?<=a)b", "(?<!a)b", "a++",
          "a*+",    "[[:alpha:]]", "\\p{Greek}", "(a*)*",       "(?:a?)+", "\\bx",    "a{2000}",
          "(?s:.)", "(?i)a",       "[a&&b]",     "a(b",         "a)b",     "[ab",     "*a",
          "a{2,1}", "\\",          "\\q",        "\\x{110000}", "(?=a)*"}) {
        INFO(p);
        try {
            llm::PretokenizerRegex re(p, "pre_tokenizer.pattern.Regex");
            FAIL("accepted " << p);
        } catch (const llm::Error &e) {
            CHECK(e.status() == LLM_ERR_UNSUPPORTED);
            CHECK(std::string(e.what()).find("pre_tokenizer.pattern.Regex") != std::string::npos);
        }
    }
}

TEST_CASE("catastrophic backtracking stops with an error", "[regex]") {
    llm::PretokenizerRegex re("(?:a|a)+c", "p");
    std::vector<std::pair<size_t, size_t>> m;
    try {
        re.find_all(std::string(64, 'a'), m);
        FAIL("no error");
    } catch (const llm::Error &e) {
        CHECK(e.status() == LLM_ERR_UNSUPPORTED);
    }
}
