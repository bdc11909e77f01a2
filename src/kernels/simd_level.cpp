#include "kernels/simd_level.h"

#include <cstdlib>
#include <cstring>
#include <initializer_list>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#define LLM_X86_CPUID 1
#endif

namespace llm {

const char *simd_level_name(SimdLevel level) {
    switch (level) {
    case SimdLevel::Scalar: return "scalar";
    case SimdLevel::Neon: return "neon";
    case SimdLevel::Avx2: return "avx2";
    case SimdLevel::Avx512: return "avx512";
    case SimdLevel::Avx512Vnni: return "avx512vnni";
    }
    return "?";
}

namespace {

#if LLM_X86_CPUID
// XCR0: which register states the OS saves on a context switch. The CPU
// may support AVX-512 while the OS does not enable it.
unsigned long long xcr0() {
    unsigned eax, edx;
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return (static_cast<unsigned long long>(edx) << 32) | eax;
}

SimdLevel detect_x86() {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return SimdLevel::Scalar;
    const bool fma = c & (1u << 12), osxsave = c & (1u << 27), avx = c & (1u << 28),
               f16c = c & (1u << 29);
    if (!osxsave || !avx) return SimdLevel::Scalar;
    const unsigned long long xcr = xcr0();
    if ((xcr & 0x6) != 0x6) return SimdLevel::Scalar; // SSE + AVX state
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return SimdLevel::Scalar;
    const bool avx2 = b & (1u << 5);
    if (!(avx2 && fma && f16c)) return SimdLevel::Scalar;
    const bool avx512 = (b & (1u << 16)) && (b & (1u << 17)) && (b & (1u << 30)) &&
                        (b & (1u << 31)) && (xcr & 0xe0) == 0xe0; // F DQ BW VL + opmask/zmm state
    if (!avx512) return SimdLevel::Avx2;
    const bool vnni = c & (1u << 11);
    return vnni ? SimdLevel::Avx512Vnni : SimdLevel::Avx512;
}
#endif

// The chain of levels this architecture can have, lowest first.
bool on_this_arch(SimdLevel l) {
#if defined(__aarch64__)
    return l == SimdLevel::Scalar || l == SimdLevel::Neon;
#else
    return l != SimdLevel::Neon;
#endif
}

SimdLevel choose() {
    SimdLevel best = detect_simd_level();
    const char *env = std::getenv("LLM_SIMD");
    if (!env || !*env) return best;
    for (SimdLevel l : {SimdLevel::Scalar, SimdLevel::Neon, SimdLevel::Avx2, SimdLevel::Avx512,
                        SimdLevel::Avx512Vnni})
        if (std::strcmp(env, simd_level_name(l)) == 0 && on_this_arch(l))
            return static_cast<int>(l) < static_cast<int>(best) ? l : best;
    return best;
}

} // namespace

SimdLevel detect_simd_level() {
#if LLM_X86_CPUID
    return detect_x86();
#elif defined(__aarch64__)
    return SimdLevel::Neon;
#else
    return SimdLevel::Scalar;
#endif
}

SimdLevel active_simd_level() {
    static const SimdLevel level = choose();
    return level;
}

} // namespace llm
