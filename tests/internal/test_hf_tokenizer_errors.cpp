// Bad tokenizer.json / tokenizer_config.json: every defect is an llm::Error
// with the right status and a message naming the field; nothing crashes.
#include <catch2/catch.hpp>

#include "common/error.h"
#include "support/test_support.h"
#include "tokenizer/hf_tokenizer.h"

namespace {

using nlohmann::json;

// A small but complete tokenizer: every section libllm reads is present.
json base_tokenizer() {
    return json::parse(R"({
      "version": "1.0",
      "added_tokens": [
        {"id": 5, "content": "<s>", "special": true, "lstrip": false, "rstrip": false,
         "normalized": false, "single_word": false},
        {"id": 6, "content": "<x>", "special": false, "normalized": false}
      ],
      "normalizer": {"type": "Sequence", "normalizers": [{"type": "NFC"},
                     {"type": "Replace", "pattern": {"String": "\t"}, "content": " "}]},
      "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": "\\s+|\\S+"}, "behavior": "Isolated",
         "invert": false},
        {"type": "ByteLevel", "add_prefix_space": false, "use_regex": false}]},
      "post_processor": {"type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                   {"Sequence": {"id": "A", "type_id": 0}}],
        "special_tokens": {"<s>": {"id": "<s>", "ids": [5], "tokens": ["<s>"]}}},
      "decoder": {"type": "ByteLevel"},
      "model": {"type": "BPE", "unk_token": "?", "fuse_unk": false, "byte_fallback": false,
                "vocab": {"a": 0, "b": 1, "ab": 2, "Ġ": 3, "?": 4, "Ġab": 7},
                "merges": ["a b", ["Ġ", "ab"]]}
    })");
}

struct Files {
    std::string dir = shared_dir();
    static std::string shared_dir() {
        static const std::string d = test::temp_dir(); // one folder, files rewritten
        return d;
    }
    std::string tokenizer = dir + "/tokenizer.json";
    std::string config = dir + "/tokenizer_config.json";
};

// Loads (json text, config text) and returns the error, or status 0 if it loaded.
std::pair<int, std::string> load_status(const std::string &tokenizer_text,
                                        const std::string &config_text = "") {
    Files f;
    test::write_file(f.tokenizer, tokenizer_text);
    if (!config_text.empty()) test::write_file(f.config, config_text);
    try {
        auto tok = llm::load_hf_tokenizer(f.tokenizer, config_text.empty() ? "" : f.config);
        // Whatever loaded must also work.
        auto ids = tok->encode("ab <s>a\tb <x>", true, true);
        for (int32_t id : ids)
            REQUIRE((id >= 0 && id < tok->vocab_size()));
        return {0, ""};
    } catch (const llm::Error &e) {
        return {e.status(), e.what()};
    }
}

void expect_error(const json &j, int status, const std::string &mentions) {
    auto [st, msg] = load_status(j.dump());
    INFO("message: " << msg);
    CHECK(st == status);
    CHECK(msg.find(mentions) != std::string::npos);
}

} // namespace

TEST_CASE("the base test tokenizer loads and works", "[hf_tokenizer][errors]") {
    Files f;
    test::write_file(f.tokenizer, base_tokenizer().dump());
    auto tok = llm::load_hf_tokenizer(f.tokenizer, "");
    CHECK(tok->vocab_size() == 8);
    CHECK(tok->encode("ab", false, false) == std::vector<int32_t>{2});
    CHECK(tok->encode(" ab", true, false) == std::vector<int32_t>{5, 3, 2}); // split " ", "ab"
    CHECK(tok->encode(" a", true, false) == std::vector<int32_t>{5, 3, 0});
    CHECK(tok->encode("<s><x>", false, true) == std::vector<int32_t>{5, 6});
    CHECK(tok->encode("c", false, false) == std::vector<int32_t>{4}); // unknown -> unk
    CHECK(tok->bos() == 5); // no tokenizer_config.json: the template's first token

    json j = base_tokenizer(); // a Replace normalizer with a regex pattern
    j["normalizer"]["normalizers"][1] = {
        {"type", "Replace"}, {"pattern", {{"Regex", "b+|c"}}}, {"content", "a"}};
    test::write_file(f.tokenizer, j.dump());
    tok = llm::load_hf_tokenizer(f.tokenizer, "");
    CHECK(tok->encode("abbbxc", false, false) == std::vector<int32_t>{0, 0, 4, 0});
}

TEST_CASE("malformed and missing tokenizer files", "[hf_tokenizer][errors]") {
    CHECK(load_status("{").first == LLM_ERR_FORMAT);
    CHECK(load_status("").first == LLM_ERR_FORMAT);
    CHECK(load_status("[1, 2]").first == LLM_ERR_FORMAT);
    CHECK(load_status("{\"model\": 1}").first == LLM_ERR_FORMAT);
    CHECK(load_status(std::string(100000, '[')).first == LLM_ERR_FORMAT);
    // A second value for a vocabulary entry would silently replace the first.
    std::string dup = base_tokenizer().dump();
    const std::string entry = "\"vocab\":{";
    REQUIRE(dup.find(entry) != std::string::npos);
    dup.insert(dup.find(entry) + entry.size(), "\"ab\":1,");
    auto duplicate = load_status(dup);
    CHECK(duplicate.first == LLM_ERR_FORMAT);
    CHECK(duplicate.second.find("duplicate JSON key \"ab\"") != std::string::npos);
    auto no_model = load_status("{\"version\": \"1.0\", \"added_tokens\": []}");
    CHECK(no_model.first == LLM_ERR_FORMAT);
    CHECK(no_model.second.find("model") != std::string::npos);
    try {
        llm::load_hf_tokenizer("/nonexistent/tokenizer.json", "");
        FAIL("loaded a missing file");
    } catch (const llm::Error &e) {
        CHECK(e.status() == LLM_ERR_NOT_FOUND);
    }
}

TEST_CASE("bad model sections", "[hf_tokenizer][errors]") {
    json j = base_tokenizer();
    j["model"]["type"] = "WordPiece";
    expect_error(j, LLM_ERR_UNSUPPORTED, "model.type");

    j = base_tokenizer();
    j["model"]["vocab"] = json::array();
    expect_error(j, LLM_ERR_FORMAT, "model.vocab");
    j = base_tokenizer();
    j["model"]["vocab"]["c"] = "7";
    expect_error(j, LLM_ERR_FORMAT, "model.vocab.c");
    j["model"]["vocab"]["c"] = -1;
    expect_error(j, LLM_ERR_FORMAT, "model.vocab.c");
    j["model"]["vocab"]["c"] = 1e300;
    expect_error(j, LLM_ERR_FORMAT, "model.vocab.c");
    j["model"]["vocab"]["c"] = 18446744073709551615ull;
    expect_error(j, LLM_ERR_FORMAT, "model.vocab.c");
    j["model"]["vocab"]["c"] = 2000000000;
    expect_error(j, LLM_ERR_FORMAT, "out of range");
    j["model"]["vocab"]["c"] = 1; // duplicate id
    expect_error(j, LLM_ERR_FORMAT, "id 1");

    j = base_tokenizer();
    j["model"]["merges"] = "a b";
    expect_error(j, LLM_ERR_FORMAT, "model.merges");
    j["model"]["merges"] = json::array({"a  b"});
    expect_error(j, LLM_ERR_FORMAT, "model.merges[0]");
    j["model"]["merges"] = json::array({"ab"});
    expect_error(j, LLM_ERR_FORMAT, "model.merges[0]");
    j["model"]["merges"] = json::array({json::array({"a"})});
    expect_error(j, LLM_ERR_FORMAT, "model.merges[0]");
    j["model"]["merges"] = json::array({json::array({"a", 1})});
    expect_error(j, LLM_ERR_FORMAT, "model.merges[0][1]");
    j["model"]["merges"] = json::array({"a zz"});
    expect_error(j, LLM_ERR_FORMAT, "'zz' is not in the vocabulary");
    j["model"]["merges"] = json::array({"b a"}); // "ba" is not a token
    expect_error(j, LLM_ERR_FORMAT, "'ba' is not in the vocabulary");
    j = base_tokenizer();
    j["model"].erase("merges");
    expect_error(j, LLM_ERR_FORMAT, "model.merges");
    j = base_tokenizer();
    j["model"]["unk_token"] = "<nope>";
    expect_error(j, LLM_ERR_FORMAT, "model.unk_token");
    j["model"]["unk_token"] = 3;
    expect_error(j, LLM_ERR_FORMAT, "model.unk_token");
    j = base_tokenizer();
    j["model"]["dropout"] = 0.1;
    expect_error(j, LLM_ERR_UNSUPPORTED, "model.dropout");
    j = base_tokenizer();
    j["model"]["continuing_subword_prefix"] = "##";
    expect_error(j, LLM_ERR_UNSUPPORTED, "continuing_subword_prefix");
}

TEST_CASE("bad added tokens and post-processor ids", "[hf_tokenizer][errors]") {
    json j = base_tokenizer();
    j["added_tokens"][0]["id"] = "5";
    expect_error(j, LLM_ERR_FORMAT, "added_tokens[0].id");
    j = base_tokenizer();
    j["added_tokens"][1]["id"] = 5;
    expect_error(j, LLM_ERR_FORMAT, "used twice");
    j = base_tokenizer();
    j["added_tokens"][1]["id"] = 0; // the vocabulary says id 0 is "a"
    expect_error(j, LLM_ERR_FORMAT, "added_tokens[1]");
    j = base_tokenizer();
    j["added_tokens"][1].erase("content");
    expect_error(j, LLM_ERR_FORMAT, "added_tokens[1].content");
    j = base_tokenizer();
    j["added_tokens"][1]["content"] = "";
    expect_error(j, LLM_ERR_FORMAT, "added_tokens[1].content");
    j = base_tokenizer();
    j["added_tokens"][0]["special"] = "yes";
    expect_error(j, LLM_ERR_FORMAT, "added_tokens[0].special");
    j = base_tokenizer();
    j["added_tokens"][0]["single_word"] = true;
    expect_error(j, LLM_ERR_UNSUPPORTED, "single_word");
    j = base_tokenizer();
    j["added_tokens"] = json::object();
    expect_error(j, LLM_ERR_FORMAT, "added_tokens");

    j = base_tokenizer();
    j["post_processor"]["special_tokens"]["<s>"]["ids"][0] = 99;
    expect_error(j, LLM_ERR_FORMAT, "post_processor.special_tokens.<s>.ids[0]");
    j = base_tokenizer();
    j["post_processor"]["special_tokens"].erase("<s>");
    expect_error(j, LLM_ERR_FORMAT, "post_processor.special_tokens.<s>");
    j = base_tokenizer();
    j["post_processor"] = {{"type", "Whatever"}};
    expect_error(j, LLM_ERR_UNSUPPORTED, "post_processor.type");
}

TEST_CASE("unsupported or malformed pipelines", "[hf_tokenizer][errors]") {
    json j = base_tokenizer();
    j["normalizer"] = {{"type", "NFKC"}};
    expect_error(j, LLM_ERR_UNSUPPORTED, "normalizer.type");
    j["normalizer"] = "NFC";
    expect_error(j, LLM_ERR_FORMAT, "normalizer");
    j["normalizer"] = {{"type", "Replace"}, {"pattern", {{"String", ""}}}, {"content", "x"}};
    expect_error(j, LLM_ERR_FORMAT, "normalizer.pattern.String");

    j = base_tokenizer();
    j["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = "(?<=a)b";
    expect_error(j, LLM_ERR_UNSUPPORTED, "pre_tokenizer.pretokenizers[0].pattern.Regex");
    j["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = "a(b";
    expect_error(j, LLM_ERR_UNSUPPORTED, "pre_tokenizer.pretokenizers[0].pattern.Regex");
    j["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = "\\p{Greek}";
    expect_error(j, LLM_ERR_UNSUPPORTED, "pattern.Regex");
    j["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = "(a*)*";
    expect_error(j, LLM_ERR_UNSUPPORTED, "pattern.Regex");
    j = base_tokenizer();
    j["pre_tokenizer"]["pretokenizers"][0]["behavior"] = "Sideways";
    expect_error(j, LLM_ERR_FORMAT, "behavior");
    j = base_tokenizer();
    j["pre_tokenizer"]["pretokenizers"][0]["invert"] = true;
    expect_error(j, LLM_ERR_UNSUPPORTED, "invert");
    j = base_tokenizer();
    std::swap(j["pre_tokenizer"]["pretokenizers"][0], j["pre_tokenizer"]["pretokenizers"][1]);
    expect_error(j, LLM_ERR_UNSUPPORTED, "ByteLevel must come last");
    j = base_tokenizer();
    j["pre_tokenizer"] = {{"type", "Metaspace"}};
    expect_error(j, LLM_ERR_UNSUPPORTED, "pre_tokenizer.type");

    j = base_tokenizer();
    j["decoder"] = {{"type", "WordPiece"}};
    expect_error(j, LLM_ERR_UNSUPPORTED, "decoder.type");
    j["decoder"] = {
        {"type", "Sequence"},
        {"decoders",
         {{{"type", "Fuse"}}, {{"type", "Strip"}, {"content", " "}, {"start", 0}, {"stop", 1}}}}};
    expect_error(j, LLM_ERR_UNSUPPORTED, "decoder.decoders[1]");

    // Nesting deep enough to exhaust a recursive reader.
    json deep = {{"type", "NFC"}};
    for (int i = 0; i < 50; ++i)
        deep = {{"type", "Sequence"}, {"normalizers", json::array({deep})}};
    j = base_tokenizer();
    j["normalizer"] = deep;
    expect_error(j, LLM_ERR_FORMAT, "nested too deeply");
}

TEST_CASE("bad tokenizer_config.json", "[hf_tokenizer][errors]") {
    const std::string tok = base_tokenizer().dump();
    CHECK(load_status(tok, "{\"bos_token\": ").first == LLM_ERR_FORMAT);
    CHECK(load_status(tok, "[]").first == LLM_ERR_FORMAT);
    auto st = load_status(tok, "{\"bos_token\": 5}");
    CHECK(st.first == LLM_ERR_FORMAT);
    CHECK(st.second.find("bos_token") != std::string::npos);
    st = load_status(tok, "{\"eos_token\": {\"content\": 1}}");
    CHECK(st.first == LLM_ERR_FORMAT);
    CHECK(st.second.find("eos_token.content") != std::string::npos);
    st = load_status(tok, "{\"bos_token\": \"<s>\", \"add_bos_token\": \"yes\"}");
    CHECK(st.first == LLM_ERR_FORMAT);
    CHECK(st.second.find("add_bos_token") != std::string::npos);

    Files f;
    test::write_file(f.tokenizer, tok);
    test::write_file(f.config, R"({"bos_token": {"content": "<s>"}, "eos_token": "<x>",
                                   "add_bos_token": false})");
    auto t = llm::load_hf_tokenizer(f.tokenizer, f.config);
    CHECK(t->bos() == 5);
    CHECK(t->eos() == 6);
    CHECK(t->encode("ab", true, false) == std::vector<int32_t>{2}); // add_bos_token false wins
}

TEST_CASE("every field replaced by every JSON type fails cleanly", "[hf_tokenizer][errors]") {
    const json base = base_tokenizer();
    const json replacements[] = {nullptr,
                                 true,
                                 -1,
                                 0,
                                 4294967296.0,
                                 1e300,
                                 "x",
                                 json::array(),
                                 json::object(),
                                 json::array({1, "a"})};
    std::vector<json::json_pointer> paths;
    json flat = base.flatten();
    for (auto it = flat.begin(); it != flat.end(); ++it) {
        json::json_pointer p(it.key());
        for (; !p.empty(); p = p.parent_pointer())
            paths.push_back(p);
    }
    int loaded = 0, failed = 0;
    for (const auto &p : paths) {
        for (const json &r : replacements) {
            json j = base;
            j[p] = r;
            auto [st, msg] = load_status(j.dump());
            INFO(p.to_string() << " = " << r.dump() << ": " << msg);
            CHECK((st == 0 || st == LLM_ERR_FORMAT || st == LLM_ERR_UNSUPPORTED));
            CHECK((st == 0 || !msg.empty()));
            (st == 0 ? loaded : failed)++;
        }
    }
    CHECK(failed > 100);
    CHECK(loaded > 10);
}
