// Files are size-checked before they are read (common/mapped_file.h).
#include <catch2/catch.hpp>

#include "common/error.h"
#include "common/mapped_file.h"
#include "support/test_support.h"

TEST_CASE("read_text_file refuses a file above its limit, with FORMAT", "[files]") {
    const std::string path = test::temp_dir() + "/config.json";
    test::write_file(path, std::string(1000, ' '));
    CHECK(llm::read_text_file(path, 1000).size() == 1000);
    try {
        llm::read_text_file(path, 999);
        FAIL("no error");
    } catch (const llm::Error &e) {
        CHECK(e.status() == LLM_ERR_FORMAT);
        CHECK_THAT(std::string(e.what()), Catch::Contains("1000 bytes") && Catch::Contains("999"));
    }
    try {
        llm::read_text_file(path + ".missing", 10);
        FAIL("no error");
    } catch (const llm::Error &e) {
        CHECK(e.status() == LLM_ERR_NOT_FOUND);
    }
}
