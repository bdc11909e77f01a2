// The real tokenizers the encode/decode/chat targets run on, loaded once per
// process.
#pragma once

#include <string>
#include <vector>

#include "llm.h"
#include "support/api_helpers.h"

namespace fuzz {

struct FuzzModel {
    std::string name;
    test::ModelPtr model; // freed at exit, so LeakSanitizer stays quiet
    // The tokenizer.bin of a llama2.c model (for the run.c reference
    // encoder); empty for Hugging Face tokenizers.
    std::string llama2c_tokenizer;
};

// stories260K + tok512, a synthetic 32000-vocab checkpoint + the Llama 2
// tokenizer.bin, and — when this build can load them — the stories260K-hf
// and qwen2-tiny folders (tokenizer.json).
const std::vector<FuzzModel> &tokenizer_models();

} // namespace fuzz
