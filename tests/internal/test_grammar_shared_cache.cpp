// Compiled grammars and their masks shared between samplers (GrammarCache,
// MaskStore): the same grammar on the same vocabulary is compiled once, its
// bounds hold, and a sampler drawing with a warm shared cache (also while
// other threads draw with it) picks exactly what a sampler with a grammar of
// its own picks.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "capi/capi_internal.h"
#include "grammar/gbnf_parser.h"
#include "grammar/grammar_cache.h"
#include "grammar/json_schema_gbnf.h"
#include "grammar/mask_store.h"
#include "grammar/token_trie.h"
#include "sampler/sampler.h"
#include "support/test_support.h"
#include "tokenizer/hf_tokenizer.h"

using namespace llm::grammar;

namespace {

// tests/structured_oracle/corpus/01_person.json and 23_escapes_string.json:
// the two schemas whose first sentence cost the most without sharing.
const char *kPerson = R"({"type": "object", "properties": {
  "name": {"type": "string", "minLength": 1, "maxLength": 16},
  "age": {"type": "integer", "minimum": 0, "maximum": 120},
  "email": {"type": "string", "maxLength": 24}},
  "required": ["name", "age"], "additionalProperties": false})";
const char *kStrings = R"({"type": "array", "minItems": 1, "maxItems": 3,
  "items": {"type": "string", "minLength": 1, "maxLength": 12}})";

// Every 1- and 2-byte ASCII text, some UTF-8 and JSON pieces, and an
// end-of-generation token (the last id).
std::vector<std::string> small_vocabulary() {
    std::vector<std::string> v;
    for (int a = 32; a < 127; ++a) {
        v.push_back(std::string(1, char(a)));
        for (int b = 32; b < 127; b += 3)
            v.push_back(std::string(1, char(a)) + char(b));
    }
    for (const char *t : {"\xC3\xA9", "\xE4\xB8\xAD", "\\n", "\\u00e9", "\"}", "\", \"", "\":",
                          "name", "age", "email", "true", "null", "\xF0\x9F\x98\x80", "\xC3"})
        v.push_back(t);
    v.push_back("");
    return v;
}

// Logits of step k: normal-ish (sum of uniforms), the same for every sampler.
void step_logits(size_t k, std::vector<float> &out) {
    uint64_t s = 0x9E3779B97F4A7C15ull * (k + 1);
    for (float &x : out) {
        float sum = 0.0f;
        for (int i = 0; i < 4; ++i) {
            s ^= s >> 12;
            s ^= s << 25;
            s ^= s >> 27;
            sum += static_cast<float>((s * 0x2545F4914F6CDD1Dull) >> 40) / 16777216.0f;
        }
        x = 2.0f * 1.7320508f * (sum - 2.0f); // sd about 2
    }
}

// n draws at temperature 1; an end-of-generation token restarts the grammar
// (a new sentence, as a new request would).
std::vector<int32_t> draw(llm::Sampler &s, const std::shared_ptr<const Grammar> &g,
                          const std::shared_ptr<const TokenTrie> &trie, size_t n) {
    s.set_grammar(g, trie);
    std::vector<float> logits(static_cast<size_t>(trie->n_vocab()));
    std::vector<int32_t> out;
    for (size_t k = 0; k < n; ++k) {
        step_logits(k, logits);
        const int32_t t = s.sample(logits.data(), trie->n_vocab(), out.data(), out.size());
        out.push_back(t);
        if (trie->is_eog(t)) s.set_grammar(g, trie);
    }
    return out;
}

llm::SamplerConfig config(uint64_t seed) {
    llm::SamplerConfig c;
    c.temperature = 1.0f;
    c.top_p = 1.0f;
    c.seed = seed;
    return c;
}

// The draws of a sampler whose grammar (and masks) are its own.
std::vector<int32_t> private_draw(const std::string &schema,
                                  const std::shared_ptr<const TokenTrie> &trie, uint64_t seed,
                                  size_t n) {
    auto g = parse_gbnf(llm::json_schema_to_gbnf(schema));
    REQUIRE(!g->shared_masks);
    llm::Sampler s(config(seed));
    return draw(s, g, trie, n);
}

} // namespace

TEST_CASE("grammar shared cache: one compiled grammar per text, root and vocabulary", "[grammar]") {
    GrammarCache cache;
    std::vector<std::string> vocab = small_vocabulary();
    const std::vector<int32_t> eog{static_cast<int32_t>(vocab.size()) - 1};
    auto trie = cache.trie(vocab, eog);
    CHECK(cache.trie(vocab, {eog[0], eog[0]}) == trie); // eog as the trie keeps it
    auto other = std::make_shared<TokenTrie>(vocab, eog);
    CHECK(cache.trie(vocab, eog, other) == trie); // the kept one before the hint

    auto g = cache.json_schema(trie, kPerson);
    REQUIRE(g->shared_masks);
    CHECK(g->shared_masks->serves(*trie));
    CHECK_FALSE(g->shared_masks->serves(*other));
    CHECK(cache.json_schema(trie, kPerson) == g);
    CHECK(cache.json_schema(trie, kStrings) != g);
    const char *gbnf = "root ::= \"a\" b\nb ::= [0-9]+\n";
    auto r = cache.gbnf(trie, gbnf, "root");
    CHECK(cache.gbnf(trie, gbnf, "") == r);
    CHECK(cache.gbnf(trie, gbnf, "b") != r);
    CHECK(cache.grammars() == 4);
    // A grammar text equal to the schema's text is another key.
    CHECK_THROWS_AS(cache.gbnf(trie, kPerson, "root"), llm::Error);
    CHECK(cache.grammars() == 4); // errors are not kept

    // Another vocabulary: its own trie and grammars; a third drops the
    // least recently used one with its grammars.
    vocab[0] = "Q";
    auto trie2 = cache.trie(vocab, eog);
    CHECK(trie2 != trie);
    CHECK(cache.json_schema(trie2, kPerson) != g);
    CHECK(cache.trie(small_vocabulary(), eog) == trie); // trie is now the most recent
    vocab[0] = "R";
    auto trie3 = cache.trie(vocab, eog);
    CHECK(cache.vocabularies() == GrammarCache::kMaxVocabularies);
    CHECK(cache.grammars() == 5 - 1);
    CHECK(cache.json_schema(trie2, kPerson) != nullptr); // not kept: trie2 was dropped
    CHECK(cache.grammars() == 4);
    CHECK(cache.json_schema(trie, kPerson) == g); // still there

    // At most kMaxGrammars, the least recently used dropped first.
    for (size_t i = 0; i < GrammarCache::kMaxGrammars + 8; ++i)
        cache.gbnf(trie3, "root ::= \"" + std::to_string(i) + "\"", "root");
    CHECK(cache.grammars() == GrammarCache::kMaxGrammars);
    CHECK(cache.json_schema(trie, kPerson) != g); // evicted: compiled anew
    CHECK(cache.bytes() <= GrammarCache::kMaxBytes);
    cache.clear();
    CHECK(cache.grammars() == 0);
    CHECK(cache.vocabularies() == 0);
}

TEST_CASE("grammar shared cache: a warm shared cache draws what a private one draws on "
          "qwen2-tiny's vocabulary",
          "[grammar]") {
    auto tok = llm::load_hf_tokenizer(test::shared_path("models/qwen2-tiny/tokenizer.json"),
                                      test::shared_path("models/qwen2-tiny/tokenizer_config.json"));
    const std::vector<int32_t> eog{tok->eos()};
    const auto bytes = TokenTrie::token_bytes(*tok, tok->vocab_size(), eog);
    GrammarCache cache;
    auto trie = cache.trie(bytes, eog);
    for (const char *schema : {kPerson, kStrings}) {
        INFO(schema);
        auto g = cache.json_schema(trie, schema);
        // The first request warms the store; the second, with another seed,
        // draws what a sampler without sharing draws; a third with the first
        // one's seed walks only states already kept.
        llm::Sampler first(config(1)), second(config(2)), again(config(1));
        const auto a = draw(first, g, trie, 64);
        CHECK(first.mask_cache().misses() > 0);
        CHECK(a == private_draw(schema, trie, 1, 64));
        CHECK(draw(second, cache.json_schema(trie, schema), trie, 64) ==
              private_draw(schema, trie, 2, 64));
        CHECK(draw(again, cache.json_schema(trie, schema), trie, 64) == a);
        CHECK(again.mask_cache().misses() == 0);
        CHECK(again.mask_cache().hits() > 0);
    }
}

TEST_CASE("grammar shared cache: concurrency, samplers on four threads share one schema",
          "[grammar]") {
    std::vector<std::string> vocab = small_vocabulary();
    const std::vector<int32_t> eog{static_cast<int32_t>(vocab.size()) - 1};
    auto own_trie = std::make_shared<TokenTrie>(vocab, eog);
    constexpr size_t kThreads = 4, kTokens = 48;
    std::vector<std::vector<int32_t>> expect[2];
    for (size_t t = 0; t < kThreads; ++t)
        for (int s = 0; s < 2; ++s)
            expect[s].push_back(private_draw(s ? kStrings : kPerson, own_trie, t + 1, kTokens));

    GrammarCache cache;
    std::vector<std::vector<int32_t>> got[2];
    got[0].resize(kThreads);
    got[1].resize(kThreads);
    std::vector<std::string> errors(kThreads);
    std::vector<std::thread> threads;
    for (size_t t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            try {
                // Two requests per thread per schema, all threads at once:
                // the trie, the grammars and their masks are asked for and
                // filled concurrently.
                for (int round = 0; round < 2; ++round)
                    for (int s = 0; s < 2; ++s) {
                        auto trie = cache.trie(vocab, eog);
                        auto g = cache.json_schema(trie, s ? kStrings : kPerson);
                        llm::Sampler sampler(config(t + 1));
                        auto d = draw(sampler, g, trie, kTokens);
                        if (round == 1 && d != got[s][t]) errors[t] = "round 2 differs";
                        got[s][t] = std::move(d);
                    }
            } catch (const std::exception &e) {
                errors[t] = e.what();
            }
        });
    for (std::thread &th : threads)
        th.join();
    for (size_t t = 0; t < kThreads; ++t) {
        INFO("thread " << t);
        CHECK(errors[t].empty());
        CHECK(got[0][t] == expect[0][t]);
        CHECK(got[1][t] == expect[1][t]);
    }
    CHECK(cache.grammars() == 2);
    CHECK(cache.vocabularies() == 1);
}

// Through the C API: samplers set to the same schema on one model share the
// compiled grammar, and generation gives the same tokens with the shared
// cache warm and after it was emptied.
TEST_CASE("grammar shared cache: llm_sampler_set_json_schema shares and draws the same",
          "[grammar]") {
    llm_model *model = nullptr;
    REQUIRE(llm_model_load(test::shared_path("models/qwen2-tiny").c_str(), nullptr, &model) ==
            LLM_OK);
    llm_context_params cp = llm_context_default_params();
    cp.n_ctx = 128;
    cp.n_threads = 1;
    llm_context *ctx = nullptr;
    REQUIRE(llm_context_new(model, &cp, &ctx) == LLM_OK);
    auto generate = [&](llm_sampler *s) {
        llm_context_reset(ctx);
        llm_token prompt[8];
        size_t n_prompt = 0;
        REQUIRE(llm_tokenize(model, "Answer:", 7, 0, prompt, 8, &n_prompt) == LLM_OK);
        std::vector<llm_token> out;
        for (size_t i = 0; i < n_prompt; ++i)
            out.push_back(prompt[i]);
        llm_generate_params gp = llm_generate_default_params();
        gp.max_tokens = 40;
        int32_t n = 0;
        REQUIRE(llm_generate(ctx, s, prompt, n_prompt, &gp, nullptr, nullptr, &n) == LLM_OK);
        return std::vector<llm_token>(ctx->tokens.begin(), ctx->tokens.end());
    };
    llm_sampler_params sp = llm_sampler_default_params();
    sp.temperature = 1.0f;
    sp.seed = 7;
    llm_sampler *a = nullptr, *b = nullptr, *c = nullptr;
    REQUIRE(llm_sampler_new(&sp, &a) == LLM_OK);
    REQUIRE(llm_sampler_new(&sp, &b) == LLM_OK);
    REQUIRE(llm_sampler_new(&sp, &c) == LLM_OK);
    model->grammars.clear();
    REQUIRE(llm_sampler_set_json_schema(a, model, kStrings) == LLM_OK);
    REQUIRE(llm_sampler_set_json_schema(b, model, kStrings) == LLM_OK);
    CHECK(&a->sampler.matcher()->grammar() == &b->sampler.matcher()->grammar());
    CHECK(a->sampler.trie() == b->sampler.trie());
    const auto cold = generate(a);
    const auto warm = generate(b);
    CHECK(warm == cold);
    CHECK(b->sampler.mask_cache().misses() == 0);
    model->grammars.clear();
    REQUIRE(llm_sampler_set_json_schema(c, model, kStrings) == LLM_OK);
    CHECK(&c->sampler.matcher()->grammar() != &a->sampler.matcher()->grammar());
    CHECK(generate(c) == cold);
    llm_sampler_free(a);
    llm_sampler_free(b);
    llm_sampler_free(c);
    llm_context_free(ctx);
    llm_model_free(model);
}
