// <immintrin.h> for the files built with AVX-512 flags (kernels_avx512.cpp,
// kernels_amx.cpp). GCC 12's AVX-512 headers build "undefined" vectors from
// themselves, which its own -Wuninitialized then reports wherever they are
// inlined.
#pragma once

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
