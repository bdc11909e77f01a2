// NFC and the generated Unicode tables against the Unicode Character
// Database's own NormalizationTest.txt (reduced to tests/data by
// tools/gen_unicode_tables.py).
#include <catch2/catch.hpp>

#include <sstream>

#include "support/test_support.h"
#include "tokenizer/unicode_data.h"
#include "tokenizer/unicode_normalize.h"
#include "tokenizer/utf8.h"

namespace {
std::string from_hex(const std::string &field) {
    std::istringstream in(field);
    std::string out;
    for (std::string cp; in >> cp;)
        llm::utf8_append(out, static_cast<uint32_t>(std::stoul(cp, nullptr, 16)));
    return out;
}

std::string nfc(const std::string &s) {
    std::string out;
    return llm::nfc_normalize(s, out) ? out : s;
}
} // namespace

TEST_CASE("NFC passes the Unicode NormalizationTest cases", "[unicode]") {
    std::istringstream lines(test::read_file(LLM_TEST_DATA_DIR "/normalization_cases.txt"));
    size_t n = 0, failed = 0;
    for (std::string line; std::getline(lines, line);) {
        if (line.empty() || line[0] == '#') continue;
        size_t semi = line.find(';');
        REQUIRE(semi != std::string::npos);
        std::string source = from_hex(line.substr(0, semi)),
                    expected = from_hex(line.substr(semi + 1));
        ++n;
        if (nfc(source) != expected) {
            ++failed;
            INFO(line);
            CHECK(nfc(source) == expected);
        }
        CHECK(nfc(expected) == expected); // NFC is idempotent
    }
    CHECK(n > 19000);
    CHECK(failed == 0);
}

TEST_CASE("NFC leaves normalized and invalid text alone", "[unicode]") {
    std::string out;
    CHECK_FALSE(llm::nfc_normalize("plain ASCII text", out));
    CHECK_FALSE(llm::nfc_normalize("\xC3\xA9t\xC3\xA9 \xE4\xBD\xA0\xE5\xA5\xBD", out)); // été 你好
    // Bytes that are not UTF-8 pass through and block composition.
    CHECK(nfc("e\xCC\x81") == "\xC3\xA9");
    CHECK(nfc("e\xFF\xCC\x81") == "e\xFF\xCC\x81");
    CHECK(nfc("\xCC\x81\xFF") == "\xCC\x81\xFF");
    CHECK(nfc("\xE1\x84\x80\xE1\x85\xA1") == "\xEA\xB0\x80"); // jamo -> 가
}

TEST_CASE("generated property tables", "[unicode]") {
    using llm::GeneralCategory;
    CHECK(llm::general_category('A') == GeneralCategory::Lu);
    CHECK(llm::general_category('z') == GeneralCategory::Ll);
    CHECK(llm::general_category('5') == GeneralCategory::Nd);
    CHECK(llm::general_category(0x4E00) == GeneralCategory::Lo);
    CHECK(llm::general_category(0x2167) == GeneralCategory::Nl); // Ⅷ
    CHECK(llm::general_category(0x1F600) == GeneralCategory::So);
    CHECK(llm::general_category(0xE000) == GeneralCategory::Co);
    CHECK(llm::general_category(0x0378) == GeneralCategory::Cn);
    CHECK(llm::general_category(0x110000) == GeneralCategory::Cn);
    CHECK(llm::general_category(0x20000) == GeneralCategory::Lo); // CJK extension B range
    for (uint32_t cp :
         {0x09u, 0x0Au, 0x0Du, 0x20u, 0x85u, 0xA0u, 0x1680u, 0x2000u, 0x2028u, 0x3000u})
        CHECK(llm::is_white_space(cp));
    for (uint32_t cp : {0x41u, 0x200Bu, 0xFEFFu, 0x180Eu})
        CHECK_FALSE(llm::is_white_space(cp));
    CHECK(llm::canonical_combining_class(0x0301) == 230);
    CHECK(llm::canonical_combining_class(0x0316) == 220);
    CHECK(llm::canonical_combining_class('a') == 0);
    CHECK(llm::simple_case_fold('S') == 's');
    CHECK(llm::simple_case_fold(0x17F) == 's');  // ſ
    CHECK(llm::simple_case_fold(0x212A) == 'k'); // Kelvin sign
    CHECK(llm::simple_case_fold('s') == 's');
}

TEST_CASE("UTF-8 decoding treats every malformed byte as one character", "[unicode]") {
    auto chars = [](const std::string &s) {
        std::vector<uint32_t> out;
        for (const char *p = s.data(), *e = p + s.size(); p < e;) {
            llm::Utf8Char c = llm::utf8_decode(p, e);
            out.push_back(c.cp);
            // Stepping back finds the same boundary.
            CHECK(llm::utf8_previous(s.data(), p + c.len) == p);
            p += c.len;
        }
        return out;
    };
    const uint32_t bad = llm::kInvalidByteBase;
    CHECK(chars("a\xC3\xA9") == std::vector<uint32_t>{'a', 0xE9});
    CHECK(chars("\xF0\x9F\x98\x80") == std::vector<uint32_t>{0x1F600});
    CHECK(chars("\xC0\xAF") == std::vector<uint32_t>{bad + 0xC0, bad + 0xAF}); // overlong
    CHECK(chars("\xED\xA0\x80") ==
          std::vector<uint32_t>{bad + 0xED, bad + 0xA0, bad + 0x80});          // surrogate
    CHECK(chars("\xF4\x90\x80\x80").size() == 4);                              // > U+10FFFF
    CHECK(chars("\xE4\xBD") == std::vector<uint32_t>{bad + 0xE4, bad + 0xBD}); // truncated
    CHECK(chars("\xF0\xE4\xBD\xA0") == std::vector<uint32_t>{bad + 0xF0, 0x4F60});
}
