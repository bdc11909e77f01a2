// The (buf, cap, &needed) convention of llm.h, looped: try with the guess in
// `out`, grow to the size the library asks for, try again.
#pragma once

#include <cstddef>
#include <vector>

#include "llm.h"

namespace llmnode {

// `call(T *buf, size_t cap, size_t *needed)` returns an llm_status. On
// success `out` holds exactly the elements written.
template <typename T, typename Call> llm_status CallSized(std::vector<T> &out, Call &&call) {
    size_t needed = 0;
    llm_status s = call(out.data(), out.size(), &needed);
    if (s == LLM_ERR_BUFFER_TOO_SMALL && needed > out.size()) {
        out.resize(needed);
        s = call(out.data(), out.size(), &needed);
    }
    if (s == LLM_OK) out.resize(needed);
    return s;
}

} // namespace llmnode
