// Strict UTF-8 decoding for the tokenizers. Text reaching a tokenizer may be
// any bytes: a byte that does not start a well-formed sequence is read as a
// one-byte "character" of its own (code point kInvalidByteBase + byte, which
// has no Unicode properties), so byte-level tokenizers still round-trip it.
#pragma once

#include <cstdint>
#include <string>

namespace llm {

constexpr uint32_t kInvalidByteBase = 0x110000;

struct Utf8Char {
    uint32_t cp;  // code point, or kInvalidByteBase + byte
    uint32_t len; // bytes consumed, 1..4
    bool valid() const { return cp < kInvalidByteBase; }
};

// Decodes the character at p (p < end).
inline Utf8Char utf8_decode(const char *p, const char *end) {
    const auto *s = reinterpret_cast<const unsigned char *>(p);
    const size_t avail = static_cast<size_t>(end - p);
    const unsigned char b = s[0];
    if (b < 0x80) return {b, 1};
    auto cont = [&](size_t i) { return i < avail && (s[i] & 0xC0) == 0x80; };
    if (b >= 0xC2 && b <= 0xDF && cont(1)) return {(b & 0x1Fu) << 6 | (s[1] & 0x3Fu), 2};
    if (b >= 0xE0 && b <= 0xEF && cont(1) && cont(2)) {
        uint32_t cp = (b & 0x0Fu) << 12 | (s[1] & 0x3Fu) << 6 | (s[2] & 0x3Fu);
        if (cp >= 0x800 && (cp < 0xD800 || cp > 0xDFFF)) return {cp, 3};
    } else if (b >= 0xF0 && b <= 0xF4 && cont(1) && cont(2) && cont(3)) {
        uint32_t cp =
            (b & 0x07u) << 18 | (s[1] & 0x3Fu) << 12 | (s[2] & 0x3Fu) << 6 | (s[3] & 0x3Fu);
        if (cp >= 0x10000 && cp <= 0x10FFFF) return {cp, 4};
    }
    return {kInvalidByteBase + b, 1};
}

// Start of the character that ends at p, as forward decoding from `begin`
// (a character boundary) would have found it. Requires begin < p.
inline const char *utf8_previous(const char *begin, const char *p) {
    for (long k = 2; k <= 4 && k <= p - begin; ++k) {
        Utf8Char c = utf8_decode(p - k, p);
        if (c.valid() && c.len == static_cast<uint32_t>(k)) return p - k;
    }
    return p - 1;
}

// Appends cp (a valid code point or an invalid-byte marker) as bytes.
inline void utf8_append(std::string &out, uint32_t cp) {
    if (cp >= kInvalidByteBase) {
        out.push_back(static_cast<char>(cp - kInvalidByteBase));
    } else if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
}

} // namespace llm
