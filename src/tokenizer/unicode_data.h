// Unicode character properties the tokenizers need: general category,
// White_Space, canonical composition/decomposition data and simple case
// folding. The data lives in unicode_tables.cpp, generated from the Unicode
// Character Database by tools/gen_unicode_tables.py.
#pragma once

#include <cstddef>
#include <cstdint>

namespace llm {

// Order fixed by the generator (it static_asserts it).
enum class GeneralCategory : uint8_t {
    Lu,
    Ll,
    Lt,
    Lm,
    Lo, // letters
    Mn,
    Mc,
    Me, // marks
    Nd,
    Nl,
    No, // numbers
    Pc,
    Pd,
    Ps,
    Pe,
    Pi,
    Pf,
    Po,
    Sm,
    Sc,
    Sk,
    So,
    Zs,
    Zl,
    Zp,
    Cc,
    Cf,
    Cs,
    Co,
    Cn, // Cn: unassigned
};
constexpr int kGeneralCategoryCount = 30;

namespace unicode_tables {
struct CombiningClassRange {
    uint32_t first, last;
    uint8_t ccc;
};
struct Decomposition {
    uint32_t cp;
    uint16_t offset, length; // into kDecompositionPool
};
struct Composition {
    uint64_t pair; // first << 21 | second
    uint32_t composite;
};
struct CaseFold {
    uint32_t cp, folded;
};

extern const int kPropBlockShift;
extern const uint16_t kPropIndex[];
extern const uint8_t kPropBlocks[];
extern const size_t kCombiningClassCount;
extern const CombiningClassRange kCombiningClasses[];
extern const size_t kDecompositionCount;
extern const Decomposition kDecompositions[];
extern const uint32_t kDecompositionPool[];
extern const size_t kCompositionCount;
extern const Composition kCompositions[];
extern const size_t kCaseFoldCount;
extern const CaseFold kCaseFolds[];
} // namespace unicode_tables

constexpr uint32_t kMaxCodePoint = 0x10FFFF;

// One byte per code point: bits 0-4 general category, bit 5 White_Space,
// bit 6 "NFC may change text around it" (NFC_Quick_Check is not Yes, or the
// combining class is not 0). Code points above U+10FFFF read as Cn.
inline uint8_t unicode_props(uint32_t cp) {
    using namespace unicode_tables;
    if (cp > kMaxCodePoint) return static_cast<uint8_t>(GeneralCategory::Cn);
    uint32_t block = kPropIndex[cp >> kPropBlockShift];
    return kPropBlocks[(block << kPropBlockShift) | (cp & ((1u << kPropBlockShift) - 1))];
}
constexpr uint8_t kPropCategoryMask = 0x1F;
constexpr uint8_t kPropWhiteSpace = 0x20;
constexpr uint8_t kPropNfcCheck = 0x40;

inline GeneralCategory general_category(uint32_t cp) {
    return static_cast<GeneralCategory>(unicode_props(cp) & kPropCategoryMask);
}
inline bool is_white_space(uint32_t cp) {
    return unicode_props(cp) & kPropWhiteSpace;
}

// Canonical combining class (0 for most characters).
uint8_t canonical_combining_class(uint32_t cp);
// Full canonical decomposition of cp (Hangul excluded), or length 0.
const uint32_t *canonical_decomposition(uint32_t cp, size_t &length);
// The primary composite of (first, second), or 0 (Hangul excluded).
uint32_t canonical_composition(uint32_t first, uint32_t second);
// Simple case folding (CaseFolding.txt C + S); cp itself if it has none.
uint32_t simple_case_fold(uint32_t cp);
// Calls f(cp) for every code point whose simple case folding equals
// simple_case_fold(cp), cp included.
template <typename F> void for_each_case_variant(uint32_t cp, F f) {
    using namespace unicode_tables;
    uint32_t folded = simple_case_fold(cp);
    f(folded);
    for (size_t i = 0; i < kCaseFoldCount; ++i)
        if (kCaseFolds[i].folded == folded) f(kCaseFolds[i].cp);
}

} // namespace llm
