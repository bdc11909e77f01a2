// Holds back the tail of a byte stream until it forms complete UTF-8, so a
// streaming caller never receives half a code point (a token may carry one
// byte of a 4-byte emoji). Invalid sequences come out as U+FFFD.
#pragma once

#include <string>
#include <string_view>

namespace llm {

class Utf8Stream {
  public:
    // Appends to `out` every complete character of pending + bytes.
    void push(std::string_view bytes, std::string &out);
    // Appends the held-back tail (as U+FFFD) and resets.
    void flush(std::string &out);
    void reset() { pending_.clear(); }
    size_t pending_bytes() const { return pending_.size(); }

  private:
    std::string pending_;
};

// Length of the UTF-8 sequence starting with byte b (0 if b cannot start one).
int utf8_sequence_length(unsigned char b);

} // namespace llm
