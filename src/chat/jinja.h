// Chat templates rendered by libllm's own Jinja interpreter, the way
// transformers renders a model's chat_template (Python Jinja2 with
// trim_blocks and lstrip_blocks, loop controls, raise_exception, strftime_now,
// tojson as transformers defines it, {% generation %} tags kept as their
// body). Checked byte for byte against @huggingface/jinja on real templates
// (tests/chat_oracle).
//
// Where @huggingface/jinja and Jinja2 disagree, this follows Jinja2 (what
// transformers runs): strip/lstrip/rstrip honour their argument, none prints
// "None" and true "True", lists and dicts print as Python reprs, == compares
// by value, % and // floor, string lengths and slices count code points. It
// follows @huggingface/jinja in being lenient: an attribute or item of an
// undefined value is undefined (Jinja2 raises), a string plus a number
// concatenates. Not supported: {% extends/block/include/import %}, recursive
// loops, Unicode case mapping beyond ASCII (upper, lower, title, capitalize).
//
// Every failure, from a template that does not parse to raise_exception or a
// budget exceeded, throws llm::Error with status jinja::kTemplateError and a
// message naming the template line. Work is bounded: evaluation steps, macro
// and expression depth, string and output sizes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "chat/jinja_error.h"

namespace llm {

struct JinjaLimits {
    size_t max_template = 1 << 20;  // template source bytes
    size_t max_output = 8 << 20;    // the rendered text
    size_t max_string = 8 << 20;    // any one string value made while rendering
    size_t max_items = 1 << 18;     // any one list made while rendering
    uint64_t max_steps = 2'000'000; // expression evaluations and loop iterations
    int max_depth = 300; // nested evaluation (macros calling macros...): fits in 512 KiB of
                         // stack in a release build
};

// Renders `tmpl` with the variables of `context` (a JSON object): messages
// (each with role, and content a string or a list of {type, text} parts),
// tools, add_generation_prompt, bos_token, eos_token and any extra variable
// (e.g. enable_thinking). Object keys keep their order (tools | tojson).
std::string render_chat_template(const std::string &tmpl, const nlohmann::ordered_json &context,
                                 const JinjaLimits &limits = JinjaLimits());

// The same with the context given as JSON text (FORMAT if it is not an
// object).
std::string render_chat_template(const std::string &tmpl, const std::string &context_json,
                                 const JinjaLimits &limits = JinjaLimits());
inline std::string render_chat_template(const std::string &tmpl, const char *context_json,
                                        const JinjaLimits &limits = JinjaLimits()) {
    return render_chat_template(tmpl, std::string(context_json), limits);
}

} // namespace llm
