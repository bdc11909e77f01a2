// The filters, tests and methods (str, dict, list) templates call, and the
// budget every operation draws on.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "chat/jinja.h"
#include "chat/jinja_value.h"

namespace llm::jinja {

struct Budget {
    JinjaLimits limits;
    uint64_t steps = 0;

    void step(int line, uint64_t n = 1) {
        steps += n;
        if (steps > limits.max_steps) fail_at(line, "template takes too long (step limit)");
    }
    void string_size(size_t n, int line) const {
        if (n > limits.max_string) fail_at(line, "string value too large");
    }
    void items(size_t n, int line) const {
        if (n > limits.max_items) fail_at(line, "list too large");
    }
};

// What filters such as map('upper') and select('odd') call back into.
struct Builtins {
    Budget &budget;

    Value filter(const std::string &name, const Value &operand, CallArgs &args, int line);
    bool test(const std::string &name, const Value &operand, CallArgs &args, int line);
    // obj.name(args): false when obj has no such method.
    bool method(const Value &obj, const std::string &name, CallArgs &args, int line, Value &out);
};

} // namespace llm::jinja
