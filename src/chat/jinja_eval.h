// The evaluator: runs a parsed template against variables, with Jinja2's
// scoping (a for loop, a macro call and a call block open a scope; if does
// not), loop.* and loop controls, macros with caller(), namespace() and the
// globals transformers adds (raise_exception, strftime_now, range, dict).
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "chat/jinja_builtins.h"
#include "chat/jinja_parser.h"

namespace llm::jinja {

struct Scope {
    std::unordered_map<std::string, Value> vars;
    std::shared_ptr<Scope> parent;

    const Value *lookup(const std::string &name) const;
};
using ScopePtr = std::shared_ptr<Scope>;

// Renders the program; `globals` holds the caller's variables.
std::string evaluate(const std::vector<NodePtr> &program, ScopePtr globals,
                     const JinjaLimits &limits);

} // namespace llm::jinja
