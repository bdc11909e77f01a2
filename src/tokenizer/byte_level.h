// GPT-2's byte-level alphabet: every byte is shown as one printable Unicode
// character (printable Latin-1 bytes as themselves, the other 68 bytes as
// U+0100..U+0143), so byte-level BPE vocabularies are plain text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace llm {

// The character byte b is written as.
uint32_t byte_level_char(uint8_t b);
// The byte a character stands for, or -1 if it is not in the alphabet.
int byte_level_byte(uint32_t cp);
// Maps every character of a byte-level token back to its byte. Returns false
// (out unspecified) if a character is not in the alphabet.
bool byte_level_decode(std::string_view token, std::string &out);

} // namespace llm
