// llama2.c checkpoints: the legacy ("version 0") .bin that llama2.c's export
// writes — 7 int32 header fields, then fp32 tensors in a fixed order.
#pragma once

#include <memory>
#include <string>

#include "model/model.h"

namespace llm {

struct LoadOptions;

// True if the first bytes look like a llama2.c checkpoint header.
bool looks_like_llama2c(const uint8_t *data, size_t size);

std::unique_ptr<Model> load_llama2c(const std::string &path, const LoadOptions &options);

} // namespace llm
