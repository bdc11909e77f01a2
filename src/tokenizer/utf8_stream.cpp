#include "tokenizer/utf8_stream.h"

namespace llm {

namespace {
const char kReplacement[] = "\xEF\xBF\xBD"; // U+FFFD

bool continuation(unsigned char b) {
    return (b & 0xC0) == 0x80;
}

// Whether bytes[0..len) (len >= 2) may still become a valid sequence:
// excludes overlong forms, surrogates and code points above U+10FFFF.
bool valid_second_byte(unsigned char first, unsigned char second) {
    if (!continuation(second)) return false;
    if (first == 0xE0) return second >= 0xA0;
    if (first == 0xED) return second < 0xA0;
    if (first == 0xF0) return second >= 0x90;
    if (first == 0xF4) return second < 0x90;
    return true;
}
} // namespace

int utf8_sequence_length(unsigned char b) {
    if (b < 0x80) return 1;
    if (b >= 0xC2 && b <= 0xDF) return 2;
    if (b >= 0xE0 && b <= 0xEF) return 3;
    if (b >= 0xF0 && b <= 0xF4) return 4;
    return 0;
}

void Utf8Stream::push(std::string_view bytes, std::string &out) {
    pending_.append(bytes.data(), bytes.size());
    size_t i = 0;
    const size_t n = pending_.size();
    while (i < n) {
        const unsigned char b = static_cast<unsigned char>(pending_[i]);
        const int len = utf8_sequence_length(b);
        if (len == 0) { // stray continuation or invalid lead byte
            out += kReplacement;
            ++i;
            continue;
        }
        // Check the bytes we have; stop at the first that breaks the sequence.
        int have = 1;
        bool broken = false;
        while (have < len && i + have < n) {
            const unsigned char c = static_cast<unsigned char>(pending_[i + have]);
            bool ok = have == 1 ? valid_second_byte(b, c) : continuation(c);
            if (!ok) {
                broken = true;
                break;
            }
            ++have;
        }
        if (broken) {
            out += kReplacement; // the bytes so far; resume at the breaking byte
            i += have;
            continue;
        }
        if (have < len) break; // incomplete: wait for more
        out.append(pending_, i, len);
        i += len;
    }
    pending_.erase(0, i);
}

void Utf8Stream::flush(std::string &out) {
    if (!pending_.empty()) out += kReplacement;
    pending_.clear();
}

} // namespace llm
