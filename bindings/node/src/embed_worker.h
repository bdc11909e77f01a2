// model.embed(): llm_embed on a libuv worker thread, in a context made for
// the call (llm_context_params.embeddings = 1) and freed after it.
#pragma once

#include <napi.h>

#include <memory>
#include <vector>

#include "handles.h"

namespace llmnode {

// Resolves with a Float32Array: n_embd values, or n_tokens x n_embd for
// LLM_POOLING_NONE; rejects with an LlmError.
Napi::Promise EmbedAsync(Napi::Env env, std::shared_ptr<ModelHandle> model,
                         std::vector<llm_token> ids, int32_t pooling, int32_t normalize,
                         int32_t threads);

} // namespace llmnode
