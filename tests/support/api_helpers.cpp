#include "support/api_helpers.h"

#include <algorithm>

#include <catch2/catch.hpp>

#include "support/test_support.h"

namespace test {

ModelPtr load_model(const std::string &path, const char *tokenizer, int32_t weight_type) {
    llm_model_params p = llm_model_default_params();
    p.tokenizer_path = tokenizer;
    p.weight_type = weight_type;
    llm_model *m = nullptr;
    llm_status s = llm_model_load(path.c_str(), &p, &m);
    INFO(path << ": " << llm_last_error());
    REQUIRE(s == LLM_OK);
    return ModelPtr(m);
}

ModelPtr load_stories260k(int32_t weight_type) {
    static const std::string tok = shared_path("models/tok512.bin");
    return load_model(shared_path("models/stories260K.bin"), tok.c_str(), weight_type);
}

ContextPtr new_context(const llm_model *m, int32_t n_ctx, int32_t n_threads, int32_t kv_type) {
    llm_context_params p = llm_context_default_params();
    p.n_ctx = n_ctx;
    p.n_threads = n_threads;
    p.kv_type = kv_type;
    llm_context *c = nullptr;
    INFO(llm_last_error());
    REQUIRE(llm_context_new(m, &p, &c) == LLM_OK);
    return ContextPtr(c);
}

SamplerPtr greedy_sampler() {
    llm_sampler_params p = llm_sampler_default_params();
    p.temperature = 0.0f;
    llm_sampler *s = nullptr;
    REQUIRE(llm_sampler_new(&p, &s) == LLM_OK);
    return SamplerPtr(s);
}

std::vector<llm_token> tokenize(const llm_model *m, const std::string &text, int32_t flags) {
    size_t n = 0;
    llm_status s = llm_tokenize(m, text.data(), text.size(), flags, nullptr, 0, &n);
    REQUIRE((s == LLM_OK || s == LLM_ERR_BUFFER_TOO_SMALL));
    std::vector<llm_token> ids(n);
    REQUIRE(llm_tokenize(m, text.data(), text.size(), flags, ids.data(), ids.size(), &n) == LLM_OK);
    REQUIRE(n == ids.size());
    return ids;
}

std::string detokenize(const llm_model *m, const std::vector<llm_token> &ids, int32_t flags) {
    size_t n = 0;
    llm_status s = llm_detokenize(m, ids.data(), ids.size(), flags, nullptr, 0, &n);
    REQUIRE((s == LLM_OK || s == LLM_ERR_BUFFER_TOO_SMALL));
    std::string text(n, '\0');
    REQUIRE(llm_detokenize(m, ids.data(), ids.size(), flags, text.data(), text.size(), &n) ==
            LLM_OK);
    return text;
}

namespace {
template <typename Stop>
std::vector<llm_token> greedy_until(const llm_model *m, const std::vector<llm_token> &prompt,
                                    int steps, Stop stop) {
    auto ctx = new_context(m, steps);
    auto sampler = greedy_sampler();
    REQUIRE(llm_forward(ctx.get(), prompt.data(), prompt.size()) == LLM_OK);
    std::vector<llm_token> out;
    for (;;) {
        llm_token t;
        REQUIRE(llm_sample(sampler.get(), ctx.get(), &t) == LLM_OK);
        if (stop(t)) break;
        out.push_back(t);
        if (llm_context_position(ctx.get()) >= steps) break;
        REQUIRE(llm_forward(ctx.get(), &t, 1) == LLM_OK);
    }
    return out;
}
} // namespace

std::vector<llm_token> greedy(const llm_model *m, const std::vector<llm_token> &prompt, int steps) {
    return greedy_until(m, prompt, steps, [m](llm_token t) { return llm_token_is_eog(m, t) != 0; });
}

std::vector<llm_token> greedy(const llm_model *m, const std::vector<llm_token> &prompt, int steps,
                              const std::vector<llm_token> &stop) {
    return greedy_until(m, prompt, steps, [&](llm_token t) {
        return std::find(stop.begin(), stop.end(), t) != stop.end();
    });
}

std::vector<llm_token> long_prompt(const llm_model *m, size_t at_least) {
    std::string text;
    std::vector<llm_token> ids;
    while (ids.size() < at_least) {
        text += "Once upon a time, there was a little girl who liked to play in the park. ";
        ids = tokenize(m, text);
    }
    return ids;
}

} // namespace test
