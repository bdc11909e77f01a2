// Constrained generation through the C API on qwen2-tiny (random weights, so
// the model alone would write anything): at temperature 1 over many seeds,
// every output must be a sentence (or, cut by max_tokens, a prefix) of the
// grammar.
#include <catch2/catch.hpp>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "common/error.h"
#include "grammar/gbnf_parser.h"
#include "grammar/grammar_matcher.h"
#include "grammar/json_schema_gbnf.h"
#include "grammar/token_trie.h"
#include "llm.h"
#include "sampler/sampler.h"
#include "support/test_support.h"

using namespace llm::grammar;

namespace {

struct Loaded {
    llm_model *model = nullptr;
    llm_context *ctx = nullptr;
    Loaded() {
        REQUIRE(llm_model_load(test::shared_path("models/qwen2-tiny").c_str(), nullptr, &model) ==
                LLM_OK);
        llm_context_params cp = llm_context_default_params();
        cp.n_ctx = 256;
        cp.n_threads = 1;
        REQUIRE(llm_context_new(model, &cp, &ctx) == LLM_OK);
    }
    ~Loaded() {
        llm_context_free(ctx);
        llm_model_free(model);
    }
};

struct Output {
    std::string text;
    int32_t n = 0;
    bool ended = false; // stopped at end-of-generation
};

int32_t collect(const char *text, size_t len, llm_token, void *user) {
    static_cast<Output *>(user)->text.append(text, len);
    return 0;
}

Output generate(Loaded &l, llm_sampler *s, int32_t max_tokens) {
    llm_context_reset(l.ctx);
    llm_token prompt[8];
    size_t n_prompt = 0;
    REQUIRE(llm_tokenize(l.model, "Answer:", 7, 0, prompt, 8, &n_prompt) == LLM_OK);
    llm_generate_params gp = llm_generate_default_params();
    gp.max_tokens = max_tokens;
    Output out;
    const llm_status st = llm_generate(l.ctx, s, prompt, n_prompt, &gp, collect, &out, &out.n);
    INFO(llm_last_error());
    REQUIRE(st == LLM_OK);
    out.ended = out.n < max_tokens;
    return out;
}

const char *kJson = R"(root ::= object
object ::= "{" ( pair ( ", " pair )* )? "}"
pair ::= "\"" [a-z]{1,8} "\": " value
value ::= [0-9]{1,4} | "true" | "false" | "\"" [a-zA-Z ]{0,12} "\"" | object
)";

} // namespace

TEST_CASE("grammar generation: sampled outputs always parse", "[grammar]") {
    Loaded l;
    struct Case {
        const char *gbnf;
        bool must_end; // finite language: generation ends inside max_tokens
    };
    const Case cases[] = {
        {"root ::= (\"yes\" | \"no\") \".\"", true},
        {"root ::= [0-9]{1,3} (\",\" [0-9]{1,3}){0,3}", true},
        {"root ::= [\xCE\xB1-\xCF\x89]{1,8}", true},
        {"root ::= \"name: \" [A-Za-z ]{1,20} \"\\n\"", true},
        {kJson, false},
    };
    for (const Case &c : cases) {
        auto g = parse_gbnf(c.gbnf);
        for (uint64_t seed = 1; seed <= 20; ++seed) {
            llm_sampler_params sp = llm_sampler_default_params();
            sp.temperature = 1.0f;
            sp.top_p = 1.0f;
            sp.seed = seed;
            llm_sampler *s = nullptr;
            REQUIRE(llm_sampler_new(&sp, &s) == LLM_OK);
            REQUIRE(llm_sampler_set_grammar(s, l.model, c.gbnf, nullptr) == LLM_OK);
            const Output out = generate(l, s, 64);
            llm_sampler_free(s);
            INFO(c.gbnf << "\nseed " << seed << ": '" << out.text << "'");
            GrammarMatcher m(g);
            CHECK(m.accept_bytes(out.text));
            if (out.ended) CHECK(m.can_end());
            if (c.must_end) CHECK(out.ended);
        }
    }
}

TEST_CASE("grammar generation: greedy, clearing and errors", "[grammar]") {
    Loaded l;
    llm_sampler_params sp = llm_sampler_default_params();
    sp.temperature = 0.0f;
    llm_sampler *s = nullptr;
    REQUIRE(llm_sampler_new(&sp, &s) == LLM_OK);
    REQUIRE(llm_sampler_set_grammar(s, l.model, "start ::= \"ok\" [!?]", "start") == LLM_OK);
    Output out = generate(l, s, 16);
    CHECK(out.ended);
    CHECK((out.text == "ok!" || out.text == "ok?"));
    // Setting it again restarts it.
    REQUIRE(llm_sampler_set_grammar(s, l.model, "root ::= \"a\" \"b\"{2}", nullptr) == LLM_OK);
    out = generate(l, s, 16);
    CHECK(out.text == "abb");
    CHECK(out.ended);

    CHECK(llm_sampler_set_grammar(s, l.model, "root ::= foo", nullptr) == LLM_ERR_GRAMMAR);
    CHECK(std::strstr(llm_last_error(), "1:10: undefined rule 'foo'") != nullptr);
    CHECK(llm_sampler_set_grammar(s, l.model, "root ::= \"x\"", "nope") == LLM_ERR_GRAMMAR);
    CHECK(llm_sampler_set_grammar(nullptr, l.model, "root ::= \"x\"", nullptr) ==
          LLM_ERR_INVALID_ARGUMENT);
    CHECK(llm_sampler_set_grammar(s, nullptr, "root ::= \"x\"", nullptr) ==
          LLM_ERR_INVALID_ARGUMENT);
    CHECK(llm_sampler_set_grammar(s, l.model, nullptr, nullptr) == LLM_ERR_INVALID_ARGUMENT);
    CHECK(llm_sampler_set_json_schema(s, l.model, nullptr) == LLM_ERR_INVALID_ARGUMENT);
    CHECK(llm_sampler_set_json_schema(s, l.model, "{\"type\": ") == LLM_ERR_GRAMMAR);
    CHECK(llm_sampler_clear_grammar(nullptr) == LLM_ERR_INVALID_ARGUMENT);

    // Cleared: unconstrained greedy output, as without a grammar.
    REQUIRE(llm_sampler_clear_grammar(s) == LLM_OK);
    const Output free_run = generate(l, s, 8);
    llm_sampler *plain = nullptr;
    REQUIRE(llm_sampler_new(&sp, &plain) == LLM_OK);
    const Output reference = generate(l, plain, 8);
    CHECK(free_run.text == reference.text);
    llm_sampler_free(plain);
    llm_sampler_free(s);
}

TEST_CASE("grammar sampler: masks, end of generation and re-draws", "[grammar]") {
    // Tokens: 0 "a", 1 "b", 2 "ab", 3 end-of-generation, 4 "c".
    auto trie = std::make_shared<TokenTrie>(std::vector<std::string>{"a", "b", "ab", "", "c"},
                                            std::vector<int32_t>{3});
    llm::SamplerConfig cfg;
    cfg.temperature = 0.0f;
    llm::Sampler s(cfg);
    s.set_grammar(parse_gbnf("root ::= \"a\" \"b\"+"), trie);
    // "c" is the model's favourite but never allowed; EOG only once "ab" is in.
    std::vector<float> logits{0.0f, 1.0f, 0.5f, 3.0f, 9.0f};
    std::vector<int32_t> history;
    CHECK(s.sample(logits.data(), 5, history.data(), history.size()) == 2);
    // Same position again: re-drawn from before the previous pick.
    logits[2] = -1.0f;
    CHECK(s.sample(logits.data(), 5, history.data(), history.size()) == 0);
    history.push_back(0);
    CHECK(s.sample(logits.data(), 5, history.data(), history.size()) == 1);
    history.push_back(1);
    CHECK(s.sample(logits.data(), 5, history.data(), history.size()) == 3);
    CHECK(s.matcher()->can_end());
    // Only "b" or end: with "b" made impossible by the grammar, only end.
    s.set_grammar(parse_gbnf("root ::= \"a\""), trie);
    CHECK(s.sample(logits.data(), 5, history.data(), 0) == 0);
    CHECK(s.sample(logits.data(), 5, history.data(), 1) == 3);
    // Nothing can continue and there is no end: GRAMMAR.
    auto no_eog =
        std::make_shared<TokenTrie>(std::vector<std::string>{"a", "b"}, std::vector<int32_t>{});
    s.set_grammar(parse_gbnf("root ::= \"c\""), no_eog);
    try {
        s.sample(logits.data(), 2, history.data(), 0);
        FAIL("no error");
    } catch (const llm::Error &e) {
        CHECK(e.status() == LLM_ERR_GRAMMAR);
    }
    // A vocabulary size that is not the trie's.
    CHECK_THROWS_AS(s.sample(logits.data(), 5, history.data(), 0), llm::Error);
    s.clear_grammar();
    CHECK(s.sample(logits.data(), 5, history.data(), 0) == 4);
}

TEST_CASE("grammar sampler: a draw over few allowed tokens is the draw over all", "[grammar]") {
    // 200 tokens, the grammar allows 6 of them at a time (<= 1/4: the
    // sampler draws over those alone): the same picks as an unconstrained
    // sampler given the logits with -inf where refused, with top-k, top-p,
    // min-p and a repetition penalty whose window holds refused ids too.
    std::vector<std::string> vocab;
    for (int i = 0; i < 200; ++i)
        vocab.push_back(i < 6 ? std::string(1, char('a' + i)) : "x" + std::to_string(i));
    auto trie = std::make_shared<TokenTrie>(vocab, std::vector<int32_t>{});
    auto g = parse_gbnf("root ::= [a-f]+");
    for (int config = 0; config < 3; ++config) {
        llm::SamplerConfig cfg;
        cfg.temperature = 0.9f;
        cfg.seed = 11 + static_cast<uint64_t>(config);
        cfg.repeat_penalty = 1.5f;
        cfg.repeat_last_n = 8;
        if (config == 0) cfg.top_k = 3;
        if (config == 1) cfg.top_p = 0.7f;
        if (config == 2) cfg.min_p = 0.2f, cfg.top_p = 1.0f;
        llm::Sampler constrained(cfg), plain(cfg);
        constrained.set_grammar(g, trie);
        std::vector<int32_t> history{7, 1, 150, 3};
        uint64_t x = 99;
        for (int step = 0; step < 100; ++step) {
            std::vector<float> logits(200), masked(200);
            for (size_t i = 0; i < logits.size(); ++i) {
                x = x * 6364136223846793005ull + 1442695040888963407ull;
                logits[i] = static_cast<float>(x >> 40) / 1e6f; // 0 .. ~16.8
                masked[i] = i < 6 ? logits[i] : -std::numeric_limits<float>::infinity();
            }
            const int32_t a =
                constrained.sample(logits.data(), 200, history.data(), history.size());
            const int32_t b = plain.sample(masked.data(), 200, history.data(), history.size());
            INFO("config " << config << ", step " << step);
            REQUIRE(a == b);
            history.push_back(step % 5 == 0 ? 100 + step : a);
        }
    }
}

TEST_CASE("grammar generation: JSON Schema outputs validate", "[grammar]") {
    Loaded l;
    const char *schema = R"({"type": "object", "properties": {
        "name": {"type": "string", "maxLength": 6},
        "ok": {"type": "boolean"},
        "n": {"type": "integer", "minimum": 0, "maximum": 99}},
        "required": ["name", "ok", "n"], "additionalProperties": false})";
    auto g = parse_gbnf(llm::json_schema_to_gbnf(schema));
    for (uint64_t seed = 1; seed <= 10; ++seed) {
        llm_sampler_params sp = llm_sampler_default_params();
        sp.seed = seed;
        llm_sampler *s = nullptr;
        REQUIRE(llm_sampler_new(&sp, &s) == LLM_OK);
        REQUIRE(llm_sampler_set_json_schema(s, l.model, schema) == LLM_OK);
        const Output out = generate(l, s, 64);
        llm_sampler_free(s);
        INFO("seed " << seed << ": '" << out.text << "'");
        CHECK(out.ended);
        GrammarMatcher m(g);
        CHECK(m.accept_bytes(out.text));
        CHECK(m.can_end());
        CHECK(out.text.rfind("{\"name\":", 0) == 0);
    }
}
