// The AVX-512 kernels compiled once more with VNNI (CMakeLists.txt adds
// -mavx512vnni): the Q8_0 dot product becomes vpdpbusd, and batches of Q8_0
// weights get an int8 GEMM (gemm_q8_0).
#define LLM_AVX512_VNNI_TABLE 1
#include "kernels_avx512.cpp"
