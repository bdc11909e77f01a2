// Errors of the Jinja chat-template interpreter. Every failure (a template
// that does not lex or parse, raise_exception, a type error, a budget
// exceeded) is an llm::Error with this one status and a message naming the
// template line.
#pragma once

#include <string>

#include "common/error.h"

namespace llm::jinja {

// The status of every template error.
constexpr llm_status kTemplateError = LLM_ERR_TEMPLATE;

// Throws kTemplateError "chat template: line N: <parts>" (no line when 0).
template <typename... Parts> [[noreturn]] void fail_at(int line, const Parts &...parts) {
    if (line > 0) fail(kTemplateError, "chat template: line ", line, ": ", parts...);
    fail(kTemplateError, "chat template: ", parts...);
}

} // namespace llm::jinja
