#include "tokenizer/unicode_normalize.h"

#include <vector>

#include "tokenizer/unicode_data.h"
#include "tokenizer/utf8.h"

namespace llm {

namespace {
// Hangul syllables are composed and decomposed arithmetically (Unicode 3.12).
constexpr uint32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr uint32_t kLCount = 19, kVCount = 21, kTCount = 28;
constexpr uint32_t kNCount = kVCount * kTCount, kSCount = kLCount * kNCount;

uint8_t ccc_of(uint32_t cp) {
    return cp < kInvalidByteBase ? canonical_combining_class(cp) : 0;
}

void decompose(uint32_t cp, std::vector<uint32_t> &out) {
    if (cp >= kSBase && cp < kSBase + kSCount) {
        uint32_t s = cp - kSBase;
        out.push_back(kLBase + s / kNCount);
        out.push_back(kVBase + (s % kNCount) / kTCount);
        if (s % kTCount) out.push_back(kTBase + s % kTCount);
        return;
    }
    size_t n = 0;
    const uint32_t *d = cp < kInvalidByteBase ? canonical_decomposition(cp, n) : nullptr;
    if (n == 0) {
        out.push_back(cp);
    } else {
        out.insert(out.end(), d, d + n);
    }
}

uint32_t compose(uint32_t a, uint32_t b) {
    if (a >= kLBase && a < kLBase + kLCount && b >= kVBase && b < kVBase + kVCount)
        return kSBase + ((a - kLBase) * kVCount + (b - kVBase)) * kTCount;
    if (a >= kSBase && a < kSBase + kSCount && (a - kSBase) % kTCount == 0 && b > kTBase &&
        b < kTBase + kTCount)
        return a + (b - kTBase);
    return canonical_composition(a, b);
}

// Stable sort of every run of non-starters by combining class.
void canonical_order(std::vector<uint32_t> &cps) {
    for (size_t i = 1; i < cps.size(); ++i) {
        uint8_t cc = ccc_of(cps[i]);
        if (cc == 0) continue;
        for (size_t j = i; j > 0; --j) {
            uint8_t prev = ccc_of(cps[j - 1]);
            if (prev == 0 || prev <= cc) break;
            std::swap(cps[j - 1], cps[j]);
        }
    }
}

void canonical_compose(std::vector<uint32_t> &cps) {
    size_t starter = SIZE_MAX, w = 0;
    uint8_t last_cc = 0;
    for (size_t i = 0; i < cps.size(); ++i) {
        uint32_t c = cps[i];
        uint8_t cc = ccc_of(c);
        if (starter != SIZE_MAX) {
            bool adjacent = w == starter + 1;
            if (adjacent || (last_cc != 0 && last_cc < cc)) {
                if (uint32_t composite = compose(cps[starter], c)) {
                    cps[starter] = composite;
                    continue;
                }
            }
        }
        if (cc == 0) starter = w;
        last_cc = cc;
        cps[w++] = c;
    }
    cps.resize(w);
}
} // namespace

bool nfc_normalize(std::string_view text, std::string &out) {
    const char *p = text.data(), *end = p + text.size();
    bool needed = false;
    for (const char *q = p; q < end;) {
        if (static_cast<unsigned char>(*q) < 0x80) {
            ++q;
            continue;
        }
        Utf8Char c = utf8_decode(q, end);
        q += c.len;
        if (c.valid() && (unicode_props(c.cp) & kPropNfcCheck)) {
            needed = true;
            break;
        }
    }
    if (!needed) return false;
    std::vector<uint32_t> cps;
    cps.reserve(text.size());
    for (const char *q = p; q < end;) {
        Utf8Char c = utf8_decode(q, end);
        q += c.len;
        decompose(c.cp, cps);
    }
    canonical_order(cps);
    canonical_compose(cps);
    out.clear();
    out.reserve(text.size() + 8);
    for (uint32_t cp : cps)
        utf8_append(out, cp);
    return true;
}

} // namespace llm
