// The AVX-512 kernels compiled once more with VNNI (CMakeLists.txt adds
// -mavx512vnni): the Q8_0 dot product becomes vpdpbusd.
#define LLM_AVX512_VNNI_TABLE 1
#include "kernels_avx512.cpp"
