// RAII wrappers and shortcuts over llm.h for the black-box tests.
#pragma once

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "llm.h"

namespace test {

struct ModelDeleter {
    void operator()(llm_model *m) const { llm_model_free(m); }
};
struct ContextDeleter {
    void operator()(llm_context *c) const { llm_context_free(c); }
};
struct SamplerDeleter {
    void operator()(llm_sampler *s) const { llm_sampler_free(s); }
};
using ModelPtr = std::unique_ptr<llm_model, ModelDeleter>;
using ContextPtr = std::unique_ptr<llm_context, ContextDeleter>;
using SamplerPtr = std::unique_ptr<llm_sampler, SamplerDeleter>;

// Loads or fails the test with the library's message.
ModelPtr load_model(const std::string &path, const char *tokenizer = nullptr,
                    int32_t weight_type = LLM_WEIGHTS_AUTO);
// The stories260K checkpoint with tok512.
ModelPtr load_stories260k(int32_t weight_type = LLM_WEIGHTS_AUTO);
ContextPtr new_context(const llm_model *m, int32_t n_ctx = 0, int32_t n_threads = 1,
                       int32_t kv_type = LLM_KV_F32);
SamplerPtr greedy_sampler();
std::vector<llm_token> tokenize(const llm_model *m, const std::string &text,
                                int32_t flags = LLM_TOKENIZE_ADD_SPECIAL);
std::string detokenize(const llm_model *m, const std::vector<llm_token> &ids, int32_t flags = 0);
// Greedy continuation after `prompt`, run.c-style: stop at end-of-generation
// or once `steps` positions have been run (prompt included).
std::vector<llm_token> greedy(const llm_model *m, const std::vector<llm_token> &prompt, int steps);
// The same with the stop tokens given instead of the model's (e.g. run.c's
// rule "stop at BOS" for stories260K-hf, whose configs name only EOS).
std::vector<llm_token> greedy(const llm_model *m, const std::vector<llm_token> &prompt, int steps,
                              const std::vector<llm_token> &stop);

// At least `at_least` tokens of a story sentence repeated.
std::vector<llm_token> long_prompt(const llm_model *m, size_t at_least);

// A model loaded with `name`=`value` in the environment (read at model
// load): LLM_AUTO_BATCH=0, each context decoding alone; LLM_BATCH_EXACT=1,
// shared steps bit-identical to decoding alone.
template <typename Load> ModelPtr load_with_env(const char *name, const char *value, Load load) {
    setenv(name, value, 1);
    ModelPtr m = load();
    unsetenv(name);
    return m;
}

} // namespace test
