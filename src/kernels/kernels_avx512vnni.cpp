// The AVX-512 kernels again, compiled with VNNI too: the Q8_0 dot product
// becomes vpdpbusd.
#include "kernels/kernel_table.h"

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) &&                      \
    defined(__AVX512DQ__) && defined(__FMA__) && defined(__F16C__) && defined(__AVX512VNNI__)
// GCC 12's AVX-512 headers build "undefined" vectors from themselves, which
// its own -Wuninitialized then reports wherever they are inlined.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

namespace llm {

#include "kernels/avx512_kernels.inc"

bool fill_avx512vnni_kernels(KernelTable &t) {
    fill_common_simd_kernels(t);
    t.matvec_q8_0 = matvec_q8_0_avx512;
    t.level = SimdLevel::Avx512Vnni;
    return true;
}

} // namespace llm

#else

namespace llm {
bool fill_avx512vnni_kernels(KernelTable &) {
    return false;
}
} // namespace llm

#endif
