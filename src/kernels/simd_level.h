// Which SIMD instruction sets the kernels may use. Picked once per process
// from the CPU's features (cpuid on x86-64; on AArch64 NEON always, and the
// dot product instructions where the OS reports them); the environment
// variable LLM_SIMD can force a lower level for testing and benchmarking:
// LLM_SIMD=scalar|avx2|avx2vnni|avx512|avx512vnni|amx|neon|neondot. A level
// the CPU lacks falls back to the best one below it that it has; an unknown
// name is ignored.
#pragma once

namespace llm {

// Ordered: on each architecture a level includes the ones before it, except
// that on x86-64 AVX-VNNI (the 256-bit form) is not part of every AVX-512
// CPU: Skylake-SP, Ice Lake and Zen 4 have Avx512 or Avx512Vnni without
// Avx2Vnni.
enum class SimdLevel {
    Scalar,     // portable C++ (the reference kernels)
    Neon,       // AArch64 Advanced SIMD (ARMv8.0)
    NeonDot,    // + SDOT int8 dot products (ARMv8.2 DotProd: Cortex-A55/A76 and
                //   later, Neoverse N1/V1, Apple M1)
    Avx2,       // AVX2 + FMA + F16C
    Avx2Vnni,   // + AVX-VNNI int8 dot products on 256-bit vectors
    Avx512,     // AVX-512 F/BW/VL/DQ
    Avx512Vnni, // + AVX512-VNNI int8 dot products
    Amx,        // + AMX tiles with bf16 (batched prefill on bf16 weights)
};

const char *simd_level_name(SimdLevel level);

// The level simd_level_name() calls `name`; false (level untouched) for
// any other string.
bool simd_level_from_name(const char *name, SimdLevel &level);

// The best level this CPU and OS support.
SimdLevel detect_simd_level();

// Whether this CPU and OS support the level (all of them up to
// detect_simd_level() on its architecture, but Avx2Vnni only with AVX-VNNI).
bool simd_level_supported(SimdLevel level);

// The level in use: detect_simd_level(), lowered by LLM_SIMD if set.
SimdLevel active_simd_level();

// How many row streams a matrix-vector product reads at once (see
// for_lanes in simd_kernels.inc). It starts at 4 on AMD Zen 5 (family 26)
// and later and 8 elsewhere, and the first decoded tokens settle it by
// measuring both (row_stream_trial.h). The environment variable
// LLM_ROW_STREAMS=4|8 fixes it instead. The results do not depend on it.
int matvec_row_streams();
// matvec_row_streams() is never more than this.
constexpr int kMaxRowStreams = 8;

// For tests: use `streams` (4 or 8) from now on, and measure no more.
void set_matvec_row_streams(int streams);
// Whether LLM_ROW_STREAMS or set_matvec_row_streams fixed the count.
bool matvec_row_streams_fixed();
// For the trial: use `streams` (4 or 8), unless the count is fixed.
void set_matvec_row_streams_measured(int streams);

} // namespace llm
