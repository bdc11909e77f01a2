// Jinja lexer: template text to tokens, with the whitespace handling of
// transformers' chat-template environment (trim_blocks, lstrip_blocks, one
// trailing newline dropped, "-" markers) as @huggingface/jinja implements it,
// plus {% raw %} blocks and HF's {% generation %} tags (dropped, their body
// kept).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace llm::jinja {

enum class Tok {
    Text,
    Number,     // 12, 1.5 (text in value)
    String,     // value: the decoded literal
    Identifier, // names and keywords
    Equals,     // =
    OpenParen,
    CloseParen,
    OpenStatement,  // {%
    CloseStatement, // %}
    OpenExpression, // {{
    CloseExpression,
    OpenBracket,
    CloseBracket,
    OpenBrace,
    CloseBrace,
    Comma,
    Dot,
    Colon,
    Pipe,
    Additive,       // + - ~
    Multiplicative, // * / // %
    Power,          // **
    Comparison,     // < > <= >= == !=
    Unary,          // - + before an operand
    Comment,
};

struct Token {
    Tok type;
    std::string value;
    int line; // 1-based line in the template as given
};

// Throws kTemplateError with the line on malformed input.
std::vector<Token> tokenize(std::string_view source);

// Byte length of the Unicode whitespace code point (JavaScript's \s set:
// what String.trim strips) at s[i], 0 if none.
size_t whitespace_len(std::string_view s, size_t i);
// Length of the whitespace run that ends s (in bytes).
size_t trailing_whitespace(std::string_view s);
size_t leading_whitespace(std::string_view s);

} // namespace llm::jinja
