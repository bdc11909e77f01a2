// An independent, deliberately plain transcription of llama2.c run.c's
// encode(): vocabulary read straight from tokenizer.bin, byte fallback, and
// the O(n^2) "merge the best-scoring pair, rescan" loop. The fuzz targets
// compare libllm's tokenizer against it.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace fuzz {

class ReferenceEncoder {
  public:
    // Reads the first vocab_size entries of a tokenizer.bin.
    ReferenceEncoder(const std::string &tokenizer_bin, int vocab_size);
    // run.c encode(text, bos, eos = 0). text must not contain NUL (run.c
    // reads a C string).
    std::vector<int> encode(std::string_view text, bool bos) const;

  private:
    int lookup(const std::string &s) const;
    std::vector<std::string> vocab_;
    std::vector<float> scores_;
    std::unordered_map<std::string, int> ids_;
};

} // namespace fuzz
