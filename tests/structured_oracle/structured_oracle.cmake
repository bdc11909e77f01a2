# Structured output against ajv (included by tests/CMakeLists.txt). The
# corpus schemas (corpus/*.json) are turned into grammars by
# llm_sampler_set_json_schema, and JSON is generated under each:
#   structured_oracle.generate  qwen2-tiny (random weights, a real Qwen
#                               vocabulary), temperature 1, no top-p, seeds
#                               1..20 (gen_structured.c, llm.h only)
#   structured_oracle.walk      no model: random walks through the grammar
#                               matcher itself, 40 per schema
#                               (tests/internal/test_json_schema_gbnf.cpp)
# and check_structured.js requires every output to have ended by itself,
# be UTF-8, parse and validate with ajv (2020-12 with ajv-formats).
set(LLM_STRUCTURED_SRC ${CMAKE_CURRENT_LIST_DIR})
set(LLM_STRUCTURED_DIR ${CMAKE_BINARY_DIR}/structured_oracle)
file(GLOB LLM_STRUCTURED_CORPUS CONFIGURE_DEPENDS ${LLM_STRUCTURED_SRC}/corpus/*.json)
set(LLM_STRUCTURED_SEEDS 20)

add_test(
  NAME structured_oracle.setup
  COMMAND ${CMAKE_COMMAND} -DNODE=${LLM_NODE} -DNPM=${LLM_NPM} -DSRC_DIR=${LLM_STRUCTURED_SRC}
          -DWORK_DIR=${LLM_STRUCTURED_DIR} -P ${LLM_STRUCTURED_SRC}/setup.cmake)
set_tests_properties(structured_oracle.setup PROPERTIES FIXTURES_SETUP structured_oracle)

add_test(NAME structured_oracle.walk COMMAND llm_internal_tests "[structured_walk]")
set_tests_properties(
  structured_oracle.walk
  PROPERTIES
    FIXTURES_REQUIRED
    structured_oracle
    FIXTURES_SETUP
    structured_walk
    ENVIRONMENT
    "LLM_STRUCTURED_CORPUS=${LLM_STRUCTURED_SRC}/corpus;LLM_STRUCTURED_WALK_OUT=${LLM_STRUCTURED_DIR}/walks.jsonl"
)
add_test(NAME structured_oracle.walk_validate
         COMMAND ${LLM_NODE} ${LLM_STRUCTURED_DIR}/check_structured.js
                 ${LLM_STRUCTURED_DIR}/walks.jsonl ${LLM_STRUCTURED_SRC}/corpus 40)
set_tests_properties(structured_oracle.walk_validate PROPERTIES FIXTURES_REQUIRED
                                                                "structured_oracle;structured_walk")

if(NOT CMAKE_CROSSCOMPILING)
  add_executable(gen_structured ${LLM_STRUCTURED_SRC}/gen_structured.c)
  target_link_libraries(gen_structured PRIVATE llm::llm)
  # 512 positions, qwen2-tiny's maximum: the longest outputs take under 200
  # tokens (a run that fills the context fails as not ended). About 5 minutes
  # on 2 busy cores.
  add_test(
    NAME structured_oracle.generate
    COMMAND gen_structured ${LLM_SHARED_DIR}/models/qwen2-tiny ${LLM_STRUCTURED_DIR}/outputs.jsonl
            512 ${LLM_STRUCTURED_SEEDS} ${LLM_STRUCTURED_CORPUS})
  set_tests_properties(
    structured_oracle.generate PROPERTIES FIXTURES_REQUIRED structured_oracle FIXTURES_SETUP
                                          structured_outputs TIMEOUT 1800)
  add_test(
    NAME structured_oracle.validate
    COMMAND
      ${LLM_NODE} ${LLM_STRUCTURED_DIR}/check_structured.js ${LLM_STRUCTURED_DIR}/outputs.jsonl
      ${LLM_STRUCTURED_SRC}/corpus ${LLM_STRUCTURED_SEEDS})
  set_tests_properties(structured_oracle.validate PROPERTIES FIXTURES_REQUIRED
                                                             "structured_oracle;structured_outputs")
endif()
