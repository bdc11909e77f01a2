// llm_model_meta_* and the weight type names (1.3), through llm.h only.
// GGUF files' own metadata is checked with the GGUF loader's tests.
#include <catch2/catch.hpp>

#include <string>

#include "support/api_helpers.h"

using namespace test;

TEST_CASE("metadata: every model names its architecture", "[api][metadata]") {
    ModelPtr model = load_stories260k();
    REQUIRE(llm_model_meta_count(model.get()) >= 1);
    size_t n = 0;
    REQUIRE(llm_model_meta_value(model.get(), "general.architecture", nullptr, 0, &n) ==
            LLM_ERR_BUFFER_TOO_SMALL);
    REQUIRE(n == 5);
    std::string value(n, '\0');
    REQUIRE(llm_model_meta_value(model.get(), "general.architecture", &value[0], n, &n) == LLM_OK);
    CHECK(value == "llama");

    bool listed = false;
    for (int32_t i = 0; i < llm_model_meta_count(model.get()); ++i) {
        char key[128];
        REQUIRE(llm_model_meta_key(model.get(), i, key, sizeof key, &n) == LLM_OK);
        listed = listed || std::string(key, n) == "general.architecture";
    }
    CHECK(listed);
}

TEST_CASE("metadata: absent keys, bad indices and bad arguments", "[api][metadata]") {
    ModelPtr model = load_stories260k();
    size_t n = 7;
    char buf[16];
    CHECK(llm_model_meta_value(model.get(), "no.such.key", buf, sizeof buf, &n) ==
          LLM_ERR_NOT_FOUND);
    CHECK(n == 0);
    CHECK(llm_model_meta_key(model.get(), -1, buf, sizeof buf, &n) == LLM_ERR_INVALID_ARGUMENT);
    CHECK(llm_model_meta_key(model.get(), llm_model_meta_count(model.get()), buf, sizeof buf, &n) ==
          LLM_ERR_INVALID_ARGUMENT);
    CHECK(llm_model_meta_value(model.get(), nullptr, buf, sizeof buf, &n) ==
          LLM_ERR_INVALID_ARGUMENT);
    CHECK(llm_model_meta_value(nullptr, "general.architecture", buf, sizeof buf, &n) ==
          LLM_ERR_INVALID_ARGUMENT);
    CHECK(llm_model_meta_value(model.get(), "general.architecture", nullptr, 4, &n) ==
          LLM_ERR_INVALID_ARGUMENT);
    CHECK(llm_model_meta_count(nullptr) == 0);
}

TEST_CASE("weight type names round-trip", "[api][metadata]") {
    const char *names[] = {"auto", "f32",  "bf16", "f16",  "q8_0", "q4_0",
                           "q4_1", "q5_0", "q5_1", "q4_k", "q5_k", "q6_k"};
    for (int32_t t = 0; t < 12; ++t) {
        CHECK(std::string(llm_weight_type_name(t)) == names[t]);
        CHECK(llm_weight_type_from_name(names[t]) == t);
    }
    CHECK(llm_weight_type_from_name("q4_k_m") == -1);
    CHECK(llm_weight_type_from_name(nullptr) == -1);
    CHECK(std::string(llm_weight_type_name(12)).empty());
    CHECK(std::string(llm_weight_type_name(-1)).empty());
    CHECK(llm_weight_type_from_name("q4_0") == LLM_WEIGHTS_Q4_0);
    CHECK(llm_weight_type_from_name("q6_k") == LLM_WEIGHTS_Q6_K);
}
