// The other side of a chat template: a generated assistant answer split into
// its visible content, its reasoning (<think>...</think>) and its tool calls
// (<tool_call>{json}</tool_call> of Qwen/Hermes, Llama 3.1's bare
// {"name": ..., "parameters": ...}).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace llm {

struct ChatToolCall {
    std::string name;
    nlohmann::ordered_json arguments; // an object, or a string when the model wrote no JSON
};

struct ParsedChat {
    std::string content;
    std::string reasoning;
    std::vector<ChatToolCall> tool_calls;
};

// Never fails: what is not a well-formed block stays in content. An
// unterminated <think> makes the rest reasoning (generation stopped while
// thinking); a "</think>" without an opening tag ends reasoning that the
// prompt opened (DeepSeek-R1, Qwen3 thinking templates).
ParsedChat parse_chat_output(std::string_view text);

// {"content": ..., "reasoning_content": ..., "tool_calls": [{"name", "arguments"}]}
nlohmann::ordered_json chat_output_json(const ParsedChat &parsed);

// Parses untrusted JSON with nesting at most max_depth. Returns a discarded
// value (is_discarded()) on any error, with the reason in *error if given.
nlohmann::ordered_json parse_json_bounded(std::string_view text, int max_depth = 128,
                                          std::string *error = nullptr);

} // namespace llm
