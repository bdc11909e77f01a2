#include "kernels/float_convert.h"

#include <cmath>

namespace llm {

uint16_t f32_to_f16(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    uint32_t sign = (bits >> 16) & 0x8000u;
    uint32_t absbits = bits & 0x7fffffffu;
    if (absbits > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);  // NaN
    if (absbits >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u); // overflow → inf
    if (absbits < 0x38800000u) { // subnormal or zero in f16
        float a;
        std::memcpy(&a, &absbits, 4);
        // 2^-24 is the smallest f16 subnormal; nearbyint rounds to even.
        uint32_t m = static_cast<uint32_t>(std::nearbyint(a * 16777216.0f));
        return static_cast<uint16_t>(sign | m);
    }
    uint32_t rounded = absbits + 0xfffu + ((absbits >> 13) & 1u);
    return static_cast<uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
}

uint16_t f32_to_f16_clamped(float f) {
    return f32_to_f16(std::fmax(-65504.0f, std::fmin(f, 65504.0f)));
}

} // namespace llm
