// Sizes read from model files are untrusted: every product and sum that
// leads to an allocation or a file offset goes through these helpers.
#pragma once

#include <cstdint>

#include "common/error.h"

namespace llm {

inline uint64_t checked_mul(uint64_t a, uint64_t b, const char *what) {
    uint64_t r;
    if (__builtin_mul_overflow(a, b, &r)) fail(LLM_ERR_BAD_DIMENSIONS, what, ": size overflows");
    return r;
}

inline uint64_t checked_add(uint64_t a, uint64_t b, const char *what) {
    uint64_t r;
    if (__builtin_add_overflow(a, b, &r)) fail(LLM_ERR_BAD_DIMENSIONS, what, ": size overflows");
    return r;
}

} // namespace llm
