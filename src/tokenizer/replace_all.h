// Replace every non-overlapping occurrence of a string, left to right (the
// String pattern of tokenizer.json's Replace normalizer and decoder).
#pragma once

#include <string>
#include <string_view>

namespace llm {

// Writes text with every `from` replaced by `to` into out and returns true,
// or returns false (out untouched) if text holds no `from`. from is not empty.
inline bool replace_all(std::string_view text, std::string_view from, std::string_view to,
                        std::string &out) {
    size_t hit = text.find(from);
    if (hit == std::string_view::npos) return false;
    out.clear();
    size_t at = 0;
    for (; hit != std::string_view::npos; hit = text.find(from, at)) {
        out.append(text.substr(at, hit - at)).append(to);
        at = hit + from.size();
    }
    out.append(text.substr(at));
    return true;
}

} // namespace llm
