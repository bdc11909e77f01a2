// The NEON kernels compiled once more for ARMv8.2 with the dot product
// extension (CMakeLists.txt adds -march=armv8.2-a+dotprod): the Q8_0 dot
// product becomes SDOT, and batches of Q8_0 weights get an int8 GEMM
// (gemm_q8_0).
#define LLM_NEON_DOT_TABLE 1
#include "kernels_neon.cpp"
