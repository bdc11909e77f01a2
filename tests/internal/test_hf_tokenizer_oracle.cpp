// Every string of the oracle corpus (tests/tokenizer_oracle/gen_oracle.js,
// run by the CTest fixture tokenizer_oracle.setup) must get exactly the ids
// transformers.js gives, and decode back to its NFC form. Hidden tag: the
// test is registered by hand in CTest with the fixture, never alone.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "support/test_support.h"
#include "tokenizer/hf_tokenizer.h"

TEST_CASE("qwen2 tokenizer matches the transformers.js oracle corpus", "[.oracle]") {
    const char *env = std::getenv("LLM_TOKENIZER_ORACLE");
    const std::string path = env ? env : LLM_BUILD_DIR "/tokenizer_oracle/qwen2_oracle.json";
    auto oracle = test::read_json(path); // fails the test if the fixture did not run
    const std::string dir = test::shared_path("models/qwen2-tiny/");
    auto tok = llm::load_hf_tokenizer(dir + "tokenizer.json", dir + "tokenizer_config.json");

    const auto &cases = oracle.at("cases");
    REQUIRE(cases.size() >= 2000);
    size_t ids_equal = 0, round_trips = 0;
    for (const auto &c : cases) {
        const std::string text = c.at("text");
        const auto expected = c.at("ids").get<std::vector<int32_t>>();
        const auto ids = tok->encode(text, false, true);
        INFO("text: \"" << text << "\"");
        CHECK(ids == expected);
        ids_equal += ids == expected;

        // Decoding gives the normalized text back, with special tokens
        // rendered (parsed above) or as plain text (parse_special off).
        llm::DecodeState s1, s2;
        std::string rendered, plain;
        for (int32_t id : ids)
            tok->decode_append(s1, id, true, rendered);
        for (int32_t id : tok->encode(text, false, false))
            tok->decode_append(s2, id, false, plain);
        const std::string nfc = c.at("nfc");
        CHECK(rendered == nfc);
        CHECK(plain == nfc);
        round_trips += rendered == nfc && plain == nfc;
    }
    WARN("oracle corpus: " << cases.size() << " strings, " << ids_equal << " with identical ids, "
                           << round_trips << " round trips");
}
