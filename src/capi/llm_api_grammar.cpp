// Structured output: a grammar (GBNF, or JSON Schema turned into GBNF) that
// constrains what a sampler may pick.
#include "capi/capi_internal.h"
#include "grammar/gbnf_parser.h"
#include "grammar/json_schema_gbnf.h"
#include "grammar/token_trie.h"

using namespace llm::capi;

namespace {

// The token trie for model; the sampler's current one is kept when the model
// gives the same token texts (re-setting a grammar is then cheap).
std::shared_ptr<const llm::grammar::TokenTrie> trie_for(const llm_sampler *sampler,
                                                        const llm::Model &m) {
    const int32_t n_vocab = m.config.vocab_size;
    if (n_vocab <= 0) llm::fail(LLM_ERR_INVALID_ARGUMENT, "the model has no vocabulary");
    std::vector<std::string> bytes =
        llm::grammar::TokenTrie::token_bytes(*m.tokenizer, n_vocab, m.eog_tokens);
    if (const auto *old = sampler->sampler.trie())
        if (old->all_bytes() == bytes) {
            std::vector<int32_t> eog = m.eog_tokens;
            std::sort(eog.begin(), eog.end());
            eog.erase(std::unique(eog.begin(), eog.end()), eog.end());
            if (eog == old->eog()) return sampler->sampler.shared_trie();
        }
    return std::make_shared<llm::grammar::TokenTrie>(bytes, m.eog_tokens);
}

llm_status set_gbnf(llm_sampler *sampler, const llm_model *model, const std::string &gbnf,
                    const char *root) {
    auto g = llm::grammar::parse_gbnf(gbnf, root ? root : "root");
    auto trie = trie_for(sampler, *model->model);
    sampler->sampler.set_grammar(std::move(g), std::move(trie));
    return LLM_OK;
}

} // namespace

extern "C" {

llm_status llm_sampler_set_grammar(llm_sampler *sampler, const llm_model *model, const char *gbnf,
                                   const char *root_rule) {
    if (!sampler || !model || !gbnf)
        return invalid("llm_sampler_set_grammar: sampler, model and gbnf must not be NULL");
    return guarded([&] { return set_gbnf(sampler, model, gbnf, root_rule); });
}

llm_status llm_sampler_set_json_schema(llm_sampler *sampler, const llm_model *model,
                                       const char *schema_json) {
    if (!sampler || !model || !schema_json)
        return invalid("llm_sampler_set_json_schema: sampler, model and schema_json must not be "
                       "NULL");
    return guarded(
        [&] { return set_gbnf(sampler, model, llm::json_schema_to_gbnf(schema_json), "root"); });
}

llm_status llm_sampler_clear_grammar(llm_sampler *sampler) {
    if (!sampler) return invalid("llm_sampler_clear_grammar: sampler is NULL");
    sampler->sampler.clear_grammar();
    return LLM_OK;
}

} // extern "C"
