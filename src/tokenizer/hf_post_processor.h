// The "post_processor" of tokenizer.json, reduced to what encode() needs
// for a single sequence: the special token ids around it when add_special.
// Supported: TemplateProcessing, BertProcessing, RobertaProcessing,
// ByteLevel (adds nothing), Sequence of these.
#pragma once

#include <cstdint>
#include <vector>

#include "tokenizer/hf_json.h"

namespace llm {

struct SpecialTemplate {
    std::vector<int32_t> prefix, suffix;
};

// config may be null (no special tokens). Ids are checked against vocab_size.
SpecialTemplate parse_post_processor(const hf_json::Json *config, int32_t vocab_size,
                                     const hf_json::Where &where);

} // namespace llm
