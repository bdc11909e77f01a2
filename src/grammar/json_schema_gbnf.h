// JSON Schema -> GBNF: the grammar behind llm_sampler_set_json_schema. The
// output is llama.cpp-style GBNF text whose start rule is "root"; it accepts
// compact JSON (no whitespace between tokens) that validates against the
// schema. The supported subset, the whitespace policy and the limits are in
// docs/structured-output.md.
//
// Keywords that would constrain the output but are not supported are never
// silently ignored: they fail with LLM_ERR_GRAMMAR and a message naming the
// keyword and the JSON pointer of the schema that holds it. Annotations
// (title, description, $schema, $id, $comment, examples, default, ...) are
// accepted and have no effect.
#pragma once

#include <string>

namespace llm {

// Throws llm::Error(LLM_ERR_GRAMMAR, message) for invalid JSON, bad $refs,
// unsupported keywords and schemas past the size and depth limits.
std::string json_schema_to_gbnf(const std::string &schema_json);

} // namespace llm
