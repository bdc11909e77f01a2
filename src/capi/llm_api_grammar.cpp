// Structured output: a grammar (GBNF, or JSON Schema turned into GBNF) that
// constrains what a sampler may pick.
#include "capi/capi_internal.h"
#include "grammar/grammar_cache.h"
#include "grammar/token_trie.h"

using namespace llm::capi;

namespace {

// The model's token trie, made once (the token texts take a few ms to
// gather on a 150k vocabulary) and shared by its samplers.
std::shared_ptr<const llm::grammar::TokenTrie> trie_for(const llm_sampler *sampler,
                                                        const llm_model *model) {
    std::lock_guard<std::mutex> lock(model->trie_mutex);
    if (!model->trie) {
        const llm::Model &m = *model->model;
        const int32_t n_vocab = m.config.vocab_size;
        if (n_vocab <= 0) llm::fail(LLM_ERR_INVALID_ARGUMENT, "the model has no vocabulary");
        const std::vector<std::string> bytes =
            llm::grammar::TokenTrie::token_bytes(*m.tokenizer, n_vocab, m.eog_tokens);
        model->trie = model->grammars.trie(bytes, m.eog_tokens, sampler->sampler.shared_trie());
    }
    return model->trie;
}

// Compiled grammars (and their masks) come from the model's cache: a
// grammar asked for again, by another sampler too, starts warm.
template <typename Compile>
llm_status set_cached(llm_sampler *sampler, const llm_model *model, Compile compile) {
    auto trie = trie_for(sampler, model);
    auto g = compile(model->grammars, trie);
    sampler->sampler.set_grammar(std::move(g), std::move(trie));
    return LLM_OK;
}

} // namespace

extern "C" {

llm_status llm_sampler_set_grammar(llm_sampler *sampler, const llm_model *model, const char *gbnf,
                                   const char *root_rule) {
    if (!sampler || !model || !gbnf)
        return invalid("llm_sampler_set_grammar: sampler, model and gbnf must not be NULL");
    return guarded([&] {
        return set_cached(sampler, model, [&](auto &cache, const auto &trie) {
            return cache.gbnf(trie, gbnf, root_rule ? root_rule : "root");
        });
    });
}

llm_status llm_sampler_set_json_schema(llm_sampler *sampler, const llm_model *model,
                                       const char *schema_json) {
    if (!sampler || !model || !schema_json)
        return invalid("llm_sampler_set_json_schema: sampler, model and schema_json must not be "
                       "NULL");
    return guarded([&] {
        return set_cached(sampler, model, [&](auto &cache, const auto &trie) {
            return cache.json_schema(trie, schema_json);
        });
    });
}

llm_status llm_sampler_clear_grammar(llm_sampler *sampler) {
    if (!sampler) return invalid("llm_sampler_clear_grammar: sampler is NULL");
    sampler->sampler.clear_grammar();
    return LLM_OK;
}

} // extern "C"
