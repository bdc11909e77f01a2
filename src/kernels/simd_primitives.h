// Helpers for the files that define simd_kernels.inc's primitives: most
// primitives are one intrinsic each, spelled differently per instruction set.
// Macros only (no functions): see kernel_table.h on linkage.
#pragma once

// inline vf name(vf a, vf b) { return intrinsic(a, b); }
#define LLM_SIMD_BINARY(name, intrinsic)                                                           \
    inline vf name(vf a, vf b) {                                                                   \
        return intrinsic(a, b);                                                                    \
    }
