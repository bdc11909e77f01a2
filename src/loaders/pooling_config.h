// How a model folder says its token states are pooled into one embedding:
// sentence-transformers' modules.json and Pooling module config
// (1_Pooling/config.json: "pooling_mode_lasttoken": true, ...).
#pragma once

#include <string>

#include "model/model.h"

namespace llm {

// The metadata key read_pooling_config sets: "mean", "last" or "first".
constexpr const char *kPoolingMetaKey = "sentence_transformers.pooling";

// Reads the folder's Pooling config, if it has one, into
// model.metadata[kPoolingMetaKey]. A folder without one is left as it is;
// a malformed one is FORMAT.
void read_pooling_config(const std::string &folder, Model &model);

} // namespace llm
