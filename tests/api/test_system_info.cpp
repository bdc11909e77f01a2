// llm_version() and llm_system_info(): what a host logs about the library.
// CTest runs this once per SIMD level forced through LLM_SIMD, so the
// reported level is checked against the request too.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <sstream>
#include <string>

#include "llm.h"

namespace {

// The levels in the order of llm.h's list, lowest first (neon and neondot sit apart:
// only on AArch64, where the x86 ones never appear).
const char *const kLevels[] = {"scalar",   "neon",   "neondot",    "avx2",
                               "avx2vnni", "avx512", "avx512vnni", "amx"};

int rank(const std::string &level) {
    for (size_t i = 0; i < std::size(kLevels); ++i)
        if (level == kLevels[i]) return static_cast<int>(i);
    return -1;
}

} // namespace

TEST_CASE("llm_version matches the header", "[api][system]") {
    CHECK(std::string(llm_version()) == LLM_VERSION_STRING);
    CHECK(llm_version_number() == LLM_VERSION_NUMBER);
}

TEST_CASE("llm_system_info names the kernels in use, the best ones and the cores",
          "[api][system]") {
    const char *info = llm_system_info();
    REQUIRE(info != nullptr);
    CHECK(info == llm_system_info()); // static storage
    INFO(info);
    std::map<std::string, std::string> kv;
    std::istringstream in(info);
    std::string pair;
    while (in >> pair) {
        const size_t eq = pair.find('=');
        REQUIRE(eq != std::string::npos);
        REQUIRE(eq > 0);
        kv[pair.substr(0, eq)] = pair.substr(eq + 1);
    }
    REQUIRE(kv.count("simd") == 1);
    REQUIRE(kv.count("simd_best") == 1);
    REQUIRE(kv.count("cores") == 1);
    const int simd = rank(kv["simd"]), best = rank(kv["simd_best"]);
    CHECK(simd >= 0);
    CHECK(best >= 0);
    CHECK(simd <= best);
    CHECK(std::atoi(kv["cores"].c_str()) >= 1);

    const char *env = std::getenv("LLM_SIMD");
    const int want = env ? rank(env) : -1;
    if (want < 0) {
        CHECK(simd == best); // no request, or an unknown name: the best level
    } else if (want == 0 || want == best) {
        CHECK(simd == want); // always there, or exactly what the CPU has
    } else {
        CHECK(simd <= want); // the request, or a level below it the CPU has
    }
}
