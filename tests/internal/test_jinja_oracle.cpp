// Every case of the chat template oracle (tests/chat_oracle/gen_chat_oracle.js,
// run by the CTest fixture chat_oracle.setup): real chat templates rendered by
// @huggingface/jinja over a corpus of conversations must render byte for byte
// the same with libllm's interpreter, and the cases the oracle refuses must
// fail here too. Hidden tag: registered by hand in CTest with the fixture.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "chat/jinja.h"

TEST_CASE("chat templates render as @huggingface/jinja renders them", "[.jinja_oracle]") {
    const char *env = std::getenv("LLM_CHAT_ORACLE_DIR");
    const std::string dir = env ? env : LLM_BUILD_DIR "/chat_oracle";
    std::ifstream in(dir + "/chat_oracle.json", std::ios::binary);
    REQUIRE(in); // written by the fixture
    std::stringstream ss;
    ss << in.rdbuf();
    const auto oracle = nlohmann::ordered_json::parse(ss.str());
    const auto &cases = oracle.at("cases");
    REQUIRE(cases.size() >= 100);

    std::map<std::string, std::pair<int, int>> per_template; // equal, total
    size_t equal = 0;
    for (const auto &c : cases) {
        const std::string name = c.at("name");
        const std::string tmpl = c.at("template");
        auto &tally = per_template[name.substr(0, name.find('/'))];
        ++tally.second;
        INFO("case " << name);
        std::string got, error;
        try {
            got = llm::render_chat_template(tmpl, c.at("context"));
        } catch (const llm::Error &e) {
            error = e.what();
            CHECK(e.status() == llm::jinja::kTemplateError);
        }
        if (c.contains("error")) {
            INFO("oracle error: " << c.at("error").get<std::string>());
            CHECK_FALSE(error.empty());
            if (!error.empty()) ++tally.first, ++equal;
            continue;
        }
        INFO("error: " << error);
        const std::string expected = c.at("expected");
        CHECK(got == expected);
        if (error.empty() && got == expected) ++tally.first, ++equal;
    }
    std::ostringstream summary;
    for (const auto &[t, n] : per_template)
        summary << " " << t << " " << n.first << "/" << n.second << ";";
    WARN("chat oracle (" << oracle.value("generator", "?") << "): " << equal << " of "
                         << cases.size() << " cases identical;" << summary.str());
}
