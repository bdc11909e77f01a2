// Helpers for the files that define simd_kernels.inc's primitives: most
// primitives are one intrinsic each, spelled differently per instruction set.
// Macros only (no functions): see kernel_table.h on linkage.
#pragma once

// The standard headers simd_kernels.inc uses (it is included inside a
// namespace, so it cannot include them itself).
#include <algorithm>
#include <vector>

// inline vf name(vf a, vf b) { return intrinsic(a, b); }
#define LLM_SIMD_BINARY(name, intrinsic)                                                           \
    inline vf name(vf a, vf b) {                                                                   \
        return intrinsic(a, b);                                                                    \
    }
