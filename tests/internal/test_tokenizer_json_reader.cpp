// read_tokenizer_json: model.vocab and model.merges read into flat lists hold
// exactly what the JSON tree holds, the rest of the file is the same tree,
// and anything unexpected goes the ordinary parse's way (same tree, same
// errors).
#include <catch2/catch.hpp>

#include <map>

#include "common/error.h"
#include "common/json.h"
#include "support/test_support.h"
#include "tokenizer/tokenizer_json_reader.h"

namespace {

using nlohmann::json;

// The lists as the JSON tree would give them: vocab as a map, merges as pairs.
std::map<std::string, int64_t> vocab_of(const llm::BpeLists &l) {
    std::map<std::string, int64_t> out;
    for (const auto &t : l.vocab)
        out[std::string(l.text(t.begin, t.end))] = t.id;
    return out;
}
std::vector<std::pair<std::string, std::string>> merges_of(const llm::BpeLists &l) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto &m : l.merges)
        out.emplace_back(l.text(m.begin, m.split), l.text(m.split, m.end));
    return out;
}
std::vector<std::pair<std::string, std::string>> merges_of(const json &merges) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const json &m : merges) {
        if (m.is_array()) {
            out.emplace_back(m[0].get<std::string>(), m[1].get<std::string>());
        } else {
            const std::string s = m.get<std::string>();
            out.emplace_back(s.substr(0, s.find(' ')), s.substr(s.find(' ') + 1));
        }
    }
    return out;
}

// Reads text both ways and checks they agree; returns the fast reading.
llm::TokenizerJson read_both(const std::string &text) {
    llm::TokenizerJson fast = llm::read_tokenizer_json(text, "tokenizer.json");
    json tree = llm::parse_json(text, "tokenizer.json");
    if (fast.lists.has_vocab) {
        CHECK(vocab_of(fast.lists) == tree["model"]["vocab"].get<std::map<std::string, int64_t>>());
        tree["model"].erase("vocab");
    }
    if (fast.lists.has_merges) {
        CHECK(merges_of(fast.lists) == merges_of(tree["model"]["merges"]));
        tree["model"].erase("merges");
    }
    CHECK(fast.root == tree);
    return fast;
}

std::string error_of(const std::string &text, bool fast) {
    try {
        if (fast)
            llm::read_tokenizer_json(text, "tokenizer.json");
        else
            llm::parse_json(text, "tokenizer.json");
    } catch (const llm::Error &e) {
        CHECK(e.status() == LLM_ERR_FORMAT);
        return e.what();
    }
    return "";
}

json small() {
    return json::parse(R"({"version": "1.0", "added_tokens": [{"id": 3, "content": "<s>"}],
      "model": {"type": "BPE", "dropout": null, "vocab": {"a": 0, "b": 1, "a b": 2, "": 4},
                "merges": ["a b", ["a", " b"], ["", "a"]], "fuse_unk": false},
      "decoder": {"type": "Sequence", "decoders": [[1, 2.5, -3, true, null, "x", {}]]}})");
}

} // namespace

TEST_CASE("tokenizer.json reader: real files read the same as the tree", "[hf_tokenizer]") {
    for (const char *model : {"qwen2-tiny", "stories260K-hf"}) {
        INFO(model);
        auto fast = read_both(
            test::read_file(test::shared_path(std::string("models/") + model + "/tokenizer.json")));
        CHECK(fast.lists.has_vocab);
        CHECK(fast.lists.has_merges);
        CHECK(fast.lists.vocab.size() > 500);
    }
}

TEST_CASE("tokenizer.json reader: both merge forms, empty and spaced tokens", "[hf_tokenizer]") {
    auto fast = read_both(small().dump());
    CHECK(fast.lists.has_vocab);
    CHECK(fast.lists.has_merges);
    CHECK(merges_of(fast.lists) ==
          std::vector<std::pair<std::string, std::string>>{{"a", "b"}, {"a", " b"}, {"", "a"}});
    CHECK(fast.root["model"].contains("type"));
    CHECK(!fast.root["model"].contains("vocab"));
}

TEST_CASE("tokenizer.json reader: unexpected shapes take the tree's way", "[hf_tokenizer]") {
    const json variants[] = {
        [] {
            json j = small();
            j["model"]["vocab"]["c"] = 1.5;
            return j;
        }(),
        [] {
            json j = small();
            j["model"]["vocab"]["c"] = -1;
            return j;
        }(),
        [] {
            json j = small();
            j["model"]["vocab"]["c"] = "7";
            return j;
        }(),
        [] {
            json j = small();
            j["model"]["vocab"]["c"] = json::array();
            return j;
        }(),
        [] {
            json j = small();
            j["model"]["vocab"]["c"] = 18446744073709551615ull;
            return j;
        }(),
        [] {
            json j = small();
            j["model"]["vocab"] = json::array({json::array({"a", 0.5})});
            return j;
        }(),
        [] {
            json j = small();
            j["model"]["merges"].push_back("a  b");
            return j;
        }(),
        [] {
            json j = small();
            j["model"]["merges"].push_back("ab");
            return j;
        }(),
        [] {
            json j = small();
            j["model"]["merges"].push_back(json::array({"a"}));
            return j;
        }(),
        [] {
            json j = small();
            j["model"]["merges"].push_back(json::array({"a", "b", "c"}));
            return j;
        }(),
        [] {
            json j = small();
            j["model"]["merges"].push_back(json::array({"a", 1}));
            return j;
        }(),
        [] {
            json j = small();
            j["model"]["merges"].push_back(nullptr);
            return j;
        }(),
        [] {
            json j = small();
            j["model"]["merges"] = "a b";
            return j;
        }(),
        [] {
            json j = small();
            j["model"]["vocab"] = nullptr;
            return j;
        }(),
        [] {
            json j = small();
            j["model"] = json::array({small()["model"]});
            return j;
        }(),
        [] {
            json j;
            j["outer"] = small();
            return j;
        }(), // a "model" below the root
        json::array({small()}),
    };
    for (const json &j : variants) {
        INFO(j.dump());
        read_both(j.dump());
    }
}

TEST_CASE("tokenizer.json reader: the tree's errors for bad text", "[hf_tokenizer]") {
    const std::string text = small().dump();
    const std::string vocab = "\"vocab\":{";
    REQUIRE(text.find(vocab) != std::string::npos);
    std::string dup_token = text, dup_model = text, dup_vocab = text, dup_root = text;
    dup_token.insert(dup_token.find(vocab) + vocab.size(), "\"b\":5,");
    dup_vocab.insert(dup_vocab.find(vocab), "\"vocab\":{},");
    dup_model.insert(dup_model.find("\"model\""), "\"model\":1,");
    dup_root.insert(1, "\"version\":2,");
    const std::string bad[] = {
        "",
        "{",
        "[1, 2",
        text + "x",
        text.substr(0, text.size() / 2),
        dup_token,
        dup_vocab,
        dup_model,
        dup_root,
        std::string(100000, '['),
        "{\"model\": {\"vocab\": {\"a\": 1,}}}",
        "{\"model\": {\"merges\": [\"a b\" \"c d\"]}}",
    };
    for (const std::string &t : bad) {
        INFO(t.substr(0, 200));
        const std::string expected = error_of(t, false);
        CHECK(!expected.empty());
        CHECK(error_of(t, true) == expected);
    }
    CHECK(error_of(dup_token, true).find("duplicate JSON key \"b\"") != std::string::npos);
}
