// The tokenizer.json tokenizer against Hugging Face's ids: llama.cpp's Qwen2
// test strings, the qwen2-tiny prompt goldens, and stories260K-hf against
// llama2.c's goldens (same tokenizer in HF form).
#include <catch2/catch.hpp>

#include <sstream>

#include "support/test_support.h"
#include "tokenizer/hf_tokenizer.h"

namespace {

const llm::Tokenizer &qwen() {
    static auto tok =
        llm::load_hf_tokenizer(test::shared_path("models/qwen2-tiny/tokenizer.json"),
                               test::shared_path("models/qwen2-tiny/tokenizer_config.json"));
    return *tok;
}

const llm::Tokenizer &stories() {
    static auto tok =
        llm::load_hf_tokenizer(test::shared_path("models/stories260K-hf/tokenizer.json"),
                               test::shared_path("models/stories260K-hf/tokenizer_config.json"));
    return *tok;
}

std::string decode(const llm::Tokenizer &tok, const std::vector<int32_t> &ids,
                   bool render_special = false) {
    llm::DecodeState state;
    std::string out;
    for (int32_t id : ids)
        tok.decode_append(state, id, render_special, out);
    return out;
}

std::vector<int32_t> ids_of(const nlohmann::json &v) {
    return v.get<std::vector<int32_t>>();
}

} // namespace

TEST_CASE("qwen2 tokenizer reproduces llama.cpp's Hugging Face test ids", "[hf_tokenizer]") {
    std::string inp = test::read_file(test::shared_path("golden/tokenizer/qwen2.inp"));
    std::string outp = test::read_file(test::shared_path("golden/tokenizer/qwen2.out"));
    const std::string sep = "\n__ggml_vocab_test__\n";
    std::vector<std::string> texts;
    for (size_t at = 0, hit; (hit = inp.find(sep, at)) != std::string::npos; at = hit + sep.size())
        texts.push_back(inp.substr(at, hit - at));
    std::istringstream lines(outp);
    std::string line;
    size_t i = 0;
    for (; std::getline(lines, line); ++i) {
        REQUIRE(i < texts.size());
        std::vector<int32_t> expected;
        std::istringstream ids(line);
        for (int32_t id; ids >> id;)
            expected.push_back(id);
        INFO("string " << i << ": \"" << texts[i] << "\"");
        CHECK(qwen().encode(texts[i], false, false) == expected);
        CHECK(qwen().encode(texts[i], true, true) == expected); // Qwen adds no BOS
    }
    CHECK(i == 46);
    CHECK(texts.size() == 46);
}

TEST_CASE("qwen2-tiny prompt goldens encode with special tokens parsed", "[hf_tokenizer]") {
    auto manifest = test::read_json(test::shared_path("golden/qwen2-tiny/manifest.json"));
    int n = 0;
    for (const auto &name : manifest.at("prompts")) {
        auto g = test::read_json(
            test::shared_path("golden/qwen2-tiny/" + name.get<std::string>() + ".json"));
        INFO(name);
        std::string prompt = g.at("prompt");
        auto expected = ids_of(g.at("prompt_token_ids"));
        CHECK(qwen().encode(prompt, false, true) == expected);
        CHECK(decode(qwen(), expected, true) == prompt);
        ++n;
    }
    CHECK(n == 3);
}

TEST_CASE("qwen2 special tokens are text unless parse_special", "[hf_tokenizer]") {
    const llm::Tokenizer &t = qwen();
    const int32_t im_start = 151644, im_end = 151645;
    CHECK(t.find_special("<|im_start|>") == im_start);
    CHECK(t.find_special("<|im_end|>") == im_end);
    CHECK(t.find_special("<|endoftext|>") == 151643);
    CHECK(t.find_special("<think>") == 151667);
    CHECK(t.find_special("hello") == -1);
    CHECK(t.is_special(im_start));
    CHECK_FALSE(t.is_special(151667)); // <think> is added but not special
    CHECK_FALSE(t.is_special(9707));
    CHECK(t.bos() == -1); // bos_token null in tokenizer_config.json
    CHECK(t.eos() == im_end);
    CHECK(t.vocab_size() == 151669);

    std::string text = "<|im_start|>user\nhi<|im_end|>";
    auto parsed = t.encode(text, false, true);
    REQUIRE(parsed.size() >= 3);
    CHECK(parsed.front() == im_start);
    CHECK(parsed.back() == im_end);
    auto plain = t.encode(text, false, false);
    CHECK(std::find(plain.begin(), plain.end(), im_start) == plain.end());
    CHECK(std::find(plain.begin(), plain.end(), im_end) == plain.end());
    CHECK(decode(t, plain) == text);
    // Decoding skips special tokens unless asked to render them.
    CHECK(decode(t, parsed) == "user\nhi");
    CHECK(decode(t, parsed, true) == text);
    // A non-special added token is matched even without parse_special, as HF does.
    CHECK(t.encode("a<think>b", false, false) == t.encode("a<think>b", false, true));
}

TEST_CASE("qwen2 encodes long runs and arbitrary bytes", "[hf_tokenizer]") {
    const llm::Tokenizer &t = qwen();
    for (std::string text :
         {std::string(1 << 20, ' ') + "x", "x" + std::string(1 << 18, '\n'),
          std::string(1 << 18, '=') + "a", std::string("\xFF\xC0\x80 a\xE4\xBD")}) {
        auto ids = t.encode(text, false, false);
        CHECK(decode(t, ids) == text); // bytes that are not UTF-8 come back too
    }
}

TEST_CASE("qwen2 pieces and max_piece_bytes", "[hf_tokenizer]") {
    const llm::Tokenizer &t = qwen();
    size_t longest = 0;
    for (int32_t id = 0; id < t.vocab_size(); ++id)
        longest = std::max(longest, t.piece(id).size());
    CHECK(t.max_piece_bytes() == longest);
    CHECK(t.piece(151644) == "<|im_start|>");
    auto ids = t.encode(" hello", false, false);
    REQUIRE(ids.size() == 1);
    CHECK(t.piece(ids[0]) == " hello");
    // Ids past the tokenizer (the model's padded vocabulary) decode to nothing.
    llm::DecodeState st;
    std::string out;
    t.decode_append(st, 151900, false, out);
    CHECK(out.empty());
    CHECK(t.piece(151900).empty());
}

TEST_CASE("stories260K-hf encodes llama2.c's golden prompts and decodes its text",
          "[hf_tokenizer]") {
    const llm::Tokenizer &t = stories();
    CHECK(t.vocab_size() == 512);
    CHECK(t.bos() == 1);
    CHECK(t.eos() == 2);
    for (const char *name :
         {"stories260K_empty", "stories260K_once_upon", "stories260K_pigs_punct"}) {
        auto g =
            test::read_json(test::shared_path(std::string("golden/llama2c/") + name + ".json"));
        INFO(name);
        std::string prompt = g.at("prompt");
        auto expected = ids_of(g.at("prompt_token_ids"));
        CHECK(t.encode(prompt, true, true) == expected);
        auto without_bos = std::vector<int32_t>(expected.begin() + 1, expected.end());
        CHECK(t.encode(prompt, false, true) == without_bos);
        auto all = expected;
        for (int32_t id : ids_of(g.at("generated_token_ids")))
            all.push_back(id);
        CHECK(decode(t, all) + "\n" == g.at("text").get<std::string>());
    }
}

TEST_CASE("stories260K-hf decoding rules: Strip, byte fallback, specials", "[hf_tokenizer]") {
    const llm::Tokenizer &t = stories();
    auto ids = t.encode("Once upon", true, false);
    REQUIRE(ids.size() >= 2);
    CHECK(decode(t, ids) == "Once upon");
    CHECK(decode(t, ids, true) == "<s> Once upon"); // Strip only drops the text's first space
    CHECK(t.piece(ids[1]) == " Once");
    // Characters outside the 512 pieces come back through <0xXX> tokens.
    std::string exotic = "Zoë 😀 Ж";
    auto e = t.encode(exotic, false, false);
    CHECK(std::count_if(e.begin(), e.end(), [](int32_t id) { return id >= 3 && id <= 258; }) >= 4);
    CHECK(decode(t, e) == exotic);
    // Literal special-token text is parsed only on request.
    CHECK(t.encode("<s>", false, true) == std::vector<int32_t>{1});
    auto plain = t.encode("<s>", false, false);
    CHECK(std::find(plain.begin(), plain.end(), 1) == plain.end());
    CHECK(decode(t, plain) == "<s>");
    CHECK(t.find_special("</s>") == 2);
    CHECK(t.max_piece_bytes() >= t.piece(ids[1]).size());
}

TEST_CASE("ignore_merges takes a word that is a token whole (Llama 3)", "[hf_tokenizer]") {
    // "abc" is a token no merge reaches: merges give a + bc unless the
    // model's ignore_merges looks the whole word up first.
    nlohmann::json j = nlohmann::json::parse(R"({
      "pre_tokenizer": {"type": "Split", "pattern": {"String": " "}, "behavior": "Isolated"},
      "model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "c": 2, "bc": 3, "abc": 4, " ": 5},
                "merges": ["b c"]}
    })");
    const std::string path = test::temp_dir() + "/tokenizer.json";
    using V = std::vector<int32_t>;
    for (bool ignore : {false, true}) {
        j["model"]["ignore_merges"] = ignore;
        test::write_file(path, j.dump());
        auto tok = llm::load_hf_tokenizer(path, "");
        INFO("ignore_merges " << ignore);
        CHECK(tok->encode("abc", false, false) == (ignore ? V{4} : V{0, 3}));
        CHECK(tok->encode("abc abcabc", false, false) ==
              (ignore ? V{4, 5, 0, 3, 0, 3} : V{0, 3, 5, 0, 3, 0, 3}));
        CHECK(tok->encode("bc", false, false) == V{3});
    }
}
