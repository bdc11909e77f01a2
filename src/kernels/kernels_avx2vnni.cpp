// The AVX2 kernels compiled once more with AVX-VNNI (CMakeLists.txt adds
// -mavxvnni): the Q8_0 dot product becomes vpdpbusd, and batches of Q8_0
// weights get an int8 GEMM (gemm_q8_0).
#define LLM_AVX2_VNNI_TABLE 1
#include "kernels_avx2.cpp"
