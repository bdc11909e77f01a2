// Jinja parser: tokens to a syntax tree. The grammar (and operator
// precedence) follows @huggingface/jinja, which follows Jinja2: conditional
// expression, or, and, not, comparisons and in, + - ~, * / // %, **, is
// tests, | filters, unary signs, then calls, attributes, subscripts and
// slices.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "chat/jinja_lexer.h"
#include "chat/jinja_value.h"

namespace llm::jinja {

enum class Node {
    // statements
    Text,        // str
    Output,      // a: expression
    If,          // a: test, body, alt
    For,         // target (a), iterable (b), optional filter (c), body, alt (else)
    Set,         // target (a), value (b) or body when b is null
    Macro,       // str: name, params, body
    CallBlock,   // a: the call, params: caller's, body
    FilterBlock, // a: filter (Filter node with no operand), body
    Break,
    Continue,
    // expressions
    Literal,  // value
    Name,     // str
    Attr,     // a . str
    Index,    // a [ b ]
    Slice,    // a [ b : c : d ] (absent parts null)
    Call,     // a ( args )
    Filter,   // a | str ( args )
    Test,     // a is [not] str ( args ); negate
    Unary,    // str op ("-", "+", "not"), a
    Binary,   // str op, a, b
    Ternary,  // a if b else c (c null: undefined)
    ListLit,  // items
    TupleLit, // items
    DictLit,  // items: key, value, key, value...
};

struct AstNode;
using NodePtr = std::unique_ptr<AstNode>;

struct Arg {
    std::string name; // keyword argument or parameter with a default; "" positional
    NodePtr value;    // the value, or the default (null: a parameter with none)
    int spread = 0;   // 1: *args, 2: **kwargs
};

struct AstNode {
    Node kind;
    int line = 0;
    std::string str;
    bool negate = false;
    Value value;
    NodePtr a, b, c, d;
    std::vector<NodePtr> items;
    std::vector<Arg> args;
    std::vector<NodePtr> body, alt;
};

// The template's statements. Throws kTemplateError with the line.
std::vector<NodePtr> parse(const std::vector<Token> &tokens);

} // namespace llm::jinja
