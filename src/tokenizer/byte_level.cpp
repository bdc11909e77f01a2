#include "tokenizer/byte_level.h"

#include <array>

#include "tokenizer/utf8.h"

namespace llm {

namespace {
struct ByteLevelTables {
    std::array<uint32_t, 256> to_char{};
    std::array<int16_t, 0x144> to_byte{}; // every mapped character is below U+0144
    ByteLevelTables() {
        to_byte.fill(-1);
        uint32_t next = 256;
        for (uint32_t b = 0; b < 256; ++b) {
            bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
            to_char[b] = printable ? b : next++;
            to_byte[to_char[b]] = static_cast<int16_t>(b);
        }
    }
};
const ByteLevelTables &tables() {
    static const ByteLevelTables t;
    return t;
}
} // namespace

uint32_t byte_level_char(uint8_t b) {
    return tables().to_char[b];
}

int byte_level_byte(uint32_t cp) {
    return cp < 0x144 ? tables().to_byte[cp] : -1;
}

bool byte_level_decode(std::string_view token, std::string &out) {
    const char *p = token.data(), *end = p + token.size();
    while (p < end) {
        Utf8Char c = utf8_decode(p, end);
        int b = byte_level_byte(c.cp);
        if (b < 0) return false;
        out.push_back(static_cast<char>(b));
        p += c.len;
    }
    return true;
}

} // namespace llm
