#include "chat/chat_parse.h"

namespace llm {

namespace {

using OJson = nlohmann::ordered_json;

bool is_space(char c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && is_space(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && is_space(s.back()))
        s.remove_suffix(1);
    return s;
}

struct DepthExceeded {};

// A tool call object: {"name": "...", "arguments" or "parameters": {...}}.
bool read_tool_call(std::string_view text, ChatToolCall &out, bool need_arguments = false) {
    OJson j = parse_json_bounded(trim(text));
    if (!j.is_object() || !j.contains("name") || !j["name"].is_string()) return false;
    if (need_arguments && !j.contains("arguments") && !j.contains("parameters")) return false;
    const char *key = j.contains("arguments") ? "arguments" : "parameters";
    OJson args = j.contains(key) ? j[key] : OJson::object();
    // Some models write the arguments as a JSON string: decode it if it is one.
    if (args.is_string()) {
        OJson inner = parse_json_bounded(args.get<std::string>());
        if (inner.is_object()) args = std::move(inner);
    }
    if (!args.is_object() && !args.is_string()) return false;
    out.name = j["name"].get<std::string>();
    out.arguments = std::move(args);
    return true;
}

// Moves the <tool_call> blocks out of `text` into calls.
std::string take_tool_calls(std::string_view text, std::vector<ChatToolCall> &calls) {
    static constexpr std::string_view open = "<tool_call>", close = "</tool_call>";
    std::string rest;
    size_t pos = 0;
    while (pos < text.size()) {
        const size_t at = text.find(open, pos);
        if (at == std::string_view::npos) break;
        const size_t body = at + open.size();
        const size_t end = text.find(close, body);
        ChatToolCall call;
        const std::string_view inner =
            text.substr(body, end == std::string_view::npos ? std::string_view::npos : end - body);
        if (!read_tool_call(inner, call)) {
            // Malformed: left as text.
            rest.append(text.substr(pos, body - pos));
            pos = body;
            continue;
        }
        rest.append(text.substr(pos, at - pos));
        calls.push_back(std::move(call));
        pos = end == std::string_view::npos ? text.size() : end + close.size();
    }
    if (pos < text.size()) rest.append(text.substr(pos));
    return rest;
}

} // namespace

OJson parse_json_bounded(std::string_view text, int max_depth, std::string *error) {
    auto depth_check = [&](int depth, OJson::parse_event_t, OJson &) {
        if (depth > max_depth) throw DepthExceeded{};
        return true;
    };
    try {
        return OJson::parse(text.begin(), text.end(), depth_check);
    } catch (const DepthExceeded &) {
        if (error) *error = "nested deeper than " + std::to_string(max_depth) + " levels";
    } catch (const nlohmann::json::exception &e) {
        if (error) *error = e.what();
    }
    return OJson(OJson::value_t::discarded);
}

ParsedChat parse_chat_output(std::string_view text) {
    static constexpr std::string_view think = "<think>", end_think = "</think>";
    ParsedChat out;
    std::string visible;
    const size_t open = text.find(think);
    const size_t close = text.find(end_think);
    if (close != std::string_view::npos && (open == std::string_view::npos || open > close)) {
        // The prompt opened the reasoning.
        out.reasoning = std::string(trim(text.substr(0, close)));
        visible = std::string(text.substr(close + end_think.size()));
    } else if (open != std::string_view::npos) {
        const size_t body = open + think.size();
        const size_t end = text.find(end_think, body);
        visible = std::string(text.substr(0, open));
        if (end == std::string_view::npos) {
            out.reasoning = std::string(trim(text.substr(body)));
        } else {
            out.reasoning = std::string(trim(text.substr(body, end - body)));
            visible += text.substr(end + end_think.size());
        }
    } else {
        visible = std::string(text);
    }

    std::string content = take_tool_calls(visible, out.tool_calls);
    std::string_view rest = trim(content);
    // Llama 3.1: the whole answer is one JSON call, maybe after <|python_tag|>.
    static constexpr std::string_view python_tag = "<|python_tag|>";
    std::string_view bare = rest;
    if (bare.substr(0, python_tag.size()) == python_tag)
        bare = trim(bare.substr(python_tag.size()));
    ChatToolCall call;
    if (out.tool_calls.empty() && !bare.empty() && bare.front() == '{' &&
        read_tool_call(bare, call, true)) {
        out.tool_calls.push_back(std::move(call));
        rest = {};
    }
    out.content = std::string(rest);
    return out;
}

OJson chat_output_json(const ParsedChat &parsed) {
    OJson calls = OJson::array();
    for (const ChatToolCall &c : parsed.tool_calls)
        calls.push_back({{"name", c.name}, {"arguments", c.arguments}});
    return {{"content", parsed.content},
            {"reasoning_content", parsed.reasoning},
            {"tool_calls", std::move(calls)}};
}

} // namespace llm
