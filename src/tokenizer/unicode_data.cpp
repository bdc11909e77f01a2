#include "tokenizer/unicode_data.h"

#include <algorithm>

namespace llm {

using namespace unicode_tables;

uint8_t canonical_combining_class(uint32_t cp) {
    if (!(unicode_props(cp) & kPropNfcCheck)) return 0; // every ccc != 0 has the bit
    const CombiningClassRange *end = kCombiningClasses + kCombiningClassCount;
    auto it =
        std::upper_bound(kCombiningClasses, end, cp,
                         [](uint32_t c, const CombiningClassRange &r) { return c < r.first; });
    if (it == kCombiningClasses) return 0;
    --it;
    return cp <= it->last ? it->ccc : 0;
}

const uint32_t *canonical_decomposition(uint32_t cp, size_t &length) {
    const Decomposition *end = kDecompositions + kDecompositionCount;
    auto it = std::lower_bound(kDecompositions, end, cp,
                               [](const Decomposition &d, uint32_t c) { return d.cp < c; });
    if (it == end || it->cp != cp) {
        length = 0;
        return nullptr;
    }
    length = it->length;
    return kDecompositionPool + it->offset;
}

uint32_t canonical_composition(uint32_t first, uint32_t second) {
    if (first > kMaxCodePoint || second > kMaxCodePoint) return 0;
    const uint64_t key = static_cast<uint64_t>(first) << 21 | second;
    const Composition *end = kCompositions + kCompositionCount;
    auto it = std::lower_bound(kCompositions, end, key,
                               [](const Composition &c, uint64_t k) { return c.pair < k; });
    return it != end && it->pair == key ? it->composite : 0;
}

uint32_t simple_case_fold(uint32_t cp) {
    const CaseFold *end = kCaseFolds + kCaseFoldCount;
    auto it = std::lower_bound(kCaseFolds, end, cp,
                               [](const CaseFold &f, uint32_t c) { return f.cp < c; });
    return it != end && it->cp == cp ? it->folded : cp;
}

} // namespace llm
