#include "kernels/simd_level.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <iterator>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif
#define LLM_X86_CPUID 1
#endif
#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#elif defined(__aarch64__) && defined(__APPLE__)
#include <sys/sysctl.h>
#endif

namespace llm {

const char *simd_level_name(SimdLevel level) {
    switch (level) {
    case SimdLevel::Scalar: return "scalar";
    case SimdLevel::Neon: return "neon";
    case SimdLevel::NeonDot: return "neondot";
    case SimdLevel::Avx2: return "avx2";
    case SimdLevel::Avx2Vnni: return "avx2vnni";
    case SimdLevel::Avx512: return "avx512";
    case SimdLevel::Avx512Vnni: return "avx512vnni";
    case SimdLevel::Amx: return "amx";
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

// Linux hands out the 8 KiB tile state only to processes that ask for it
// (arch_prctl ARCH_REQ_XCOMP_PERM, kernel 5.16+); a tile instruction
// without it faults. Elsewhere the tiles are not used.
bool os_grants_amx() {
#if defined(__linux__)
    constexpr long kReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
    return syscall(SYS_arch_prctl, kReqXcompPerm, kXfeatureXtiledata) == 0;
#else
    return false;
#endif
}

// CPUID.(EAX=7, ECX=1):EAX bit 4. Needs only the AVX state checked below.
bool cpu_has_avx_vnni() {
    unsigned a, b, c, d;
    return __get_cpuid_count(7, 1, &a, &b, &c, &d) && (a & (1u << 4));
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
    if (!avx512) return cpu_has_avx_vnni() ? SimdLevel::Avx2Vnni : SimdLevel::Avx2;
    const bool vnni = c & (1u << 11);
    if (!vnni) return SimdLevel::Avx512;
    const bool amx = (d & (1u << 22)) && (d & (1u << 24)) &&        // AMX-BF16, AMX-TILE
                     (xcr & 0x60000) == 0x60000 && os_grants_amx(); // XTILECFG, XTILEDATA
    return amx ? SimdLevel::Amx : SimdLevel::Avx512Vnni;
}
#endif

#if defined(__aarch64__)
// SDOT is optional from ARMv8.2 (mandatory from 8.4), so it is asked for:
// the kernel's hwcaps on Linux, sysctl on Apple (every Apple M chip has it).
bool cpu_has_dotprod() {
#if defined(__ARM_FEATURE_DOTPROD)
    return true; // the whole build already assumes it
#elif defined(__linux__)
#if defined(HWCAP_ASIMDDP)
    return getauxval(AT_HWCAP) & HWCAP_ASIMDDP;
#else
    return getauxval(AT_HWCAP) & (1ul << 20);
#endif
#elif defined(__APPLE__)
    int has = 0;
    size_t size = sizeof has;
    return sysctlbyname("hw.optional.arm.FEAT_DotProd", &has, &size, nullptr, 0) == 0 && has;
#else
    return false;
#endif
}
#endif

// The chain of levels this architecture can have, lowest first.
bool on_this_arch(SimdLevel l) {
#if defined(__aarch64__)
    return l == SimdLevel::Scalar || l == SimdLevel::Neon || l == SimdLevel::NeonDot;
#else
    return l != SimdLevel::Neon && l != SimdLevel::NeonDot;
#endif
}

constexpr SimdLevel kLevels[] = {SimdLevel::Scalar,     SimdLevel::Neon,     SimdLevel::NeonDot,
                                 SimdLevel::Avx2,       SimdLevel::Avx2Vnni, SimdLevel::Avx512,
                                 SimdLevel::Avx512Vnni, SimdLevel::Amx};
constexpr bool levels_in_enum_order() {
    for (size_t i = 0; i < std::size(kLevels); ++i)
        if (static_cast<size_t>(kLevels[i]) != i) return false;
    return true;
}
static_assert(levels_in_enum_order(), "kLevels[i] is level i");

SimdLevel choose() {
    const char *env = std::getenv("LLM_SIMD");
    SimdLevel want;
    if (!env || !simd_level_from_name(env, want)) return detect_simd_level();
    // Step down to a level this CPU has.
    for (int i = static_cast<int>(want); i > 0; --i)
        if (simd_level_supported(kLevels[i])) return kLevels[i];
    return SimdLevel::Scalar;
}

bool row_streams_from_env() {
    const char *env = std::getenv("LLM_ROW_STREAMS");
    return env && (std::strcmp(env, "4") == 0 || std::strcmp(env, "8") == 0);
}

int default_row_streams() {
    if (row_streams_from_env()) return *std::getenv("LLM_ROW_STREAMS") - '0';
#if LLM_X86_CPUID
    unsigned a, b, c, d;
    if (__get_cpuid(0, &a, &b, &c, &d) && b == 0x68747541 && d == 0x69746e65 &&
        c == 0x444d4163 && // "AuthenticAMD"
        __get_cpuid(1, &a, &b, &c, &d)) {
        const unsigned base = (a >> 8) & 0xf,
                       family = base == 0xf ? base + ((a >> 20) & 0xff) : base;
        if (family >= 0x1a) return 4;
    }
#endif
    return 8;
}

std::atomic<int> g_row_streams{0}; // 0: not chosen yet
std::atomic<bool> g_row_streams_fixed{false};

} // namespace

bool simd_level_from_name(const char *name, SimdLevel &level) {
    for (SimdLevel l : kLevels)
        if (std::strcmp(name, simd_level_name(l)) == 0) {
            level = l;
            return true;
        }
    return false;
}

// Detected once: on AMX CPUs detection asks the kernel for the tile state
// (a system call), and the level, the forcing and llm_system_info all ask.
SimdLevel detect_simd_level() {
#if LLM_X86_CPUID
    static const SimdLevel best = detect_x86();
    return best;
#elif defined(__aarch64__)
    static const SimdLevel best = cpu_has_dotprod() ? SimdLevel::NeonDot : SimdLevel::Neon;
    return best;
#else
    return SimdLevel::Scalar;
#endif
}

bool simd_level_supported(SimdLevel level) {
    if (!on_this_arch(level) || static_cast<int>(level) > static_cast<int>(detect_simd_level()))
        return false;
#if LLM_X86_CPUID
    if (level == SimdLevel::Avx2Vnni) {
        static const bool avx_vnni = cpu_has_avx_vnni();
        return avx_vnni;
    }
#endif
    return true;
}

SimdLevel active_simd_level() {
    static const SimdLevel level = choose();
    return level;
}

int matvec_row_streams() {
    int streams = g_row_streams.load(std::memory_order_relaxed);
    if (streams == 0) {
        int expected = 0; // a set_matvec_row_streams() meanwhile wins
        g_row_streams.compare_exchange_strong(expected, default_row_streams());
        streams = g_row_streams.load(std::memory_order_relaxed);
    }
    return streams;
}

void set_matvec_row_streams(int streams) {
    g_row_streams_fixed.store(true, std::memory_order_relaxed);
    g_row_streams.store(streams == 4 ? 4 : 8, std::memory_order_relaxed);
}

bool matvec_row_streams_fixed() {
    static const bool from_env = row_streams_from_env();
    return from_env || g_row_streams_fixed.load(std::memory_order_relaxed);
}

void set_matvec_row_streams_measured(int streams) {
    if (!matvec_row_streams_fixed())
        g_row_streams.store(streams == 4 ? 4 : 8, std::memory_order_relaxed);
}

} // namespace llm
