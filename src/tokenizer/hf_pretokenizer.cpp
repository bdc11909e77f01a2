#include "tokenizer/hf_pretokenizer.h"

#include "common/error.h"
#include "tokenizer/hf_normalizer.h"

namespace llm {

using hf_json::Json;
using hf_json::Where;

namespace {
constexpr int kMaxDepth = 8;
// The pattern ByteLevel applies when use_regex is true (GPT-2's).
const char kGpt2Pattern[] =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
} // namespace

HfPreTokenizer::HfPreTokenizer(const Json *config, const Where &w) {
    if (config) add(*config, w, 0);
}

void HfPreTokenizer::add(const Json &config, const Where &w, int depth) {
    if (depth > kMaxDepth) hf_json::bad(w, "Sequence nested too deeply");
    hf_json::as_object(config, w);
    const std::string &type = hf_json::as_string(hf_json::require(config, "type", w), w / "type");
    if (byte_level_)
        fail(LLM_ERR_UNSUPPORTED, w.str(),
             ": a pre-tokenizer after ByteLevel is not supported (ByteLevel must come last)");
    if (type == "Sequence") {
        const Json &list =
            hf_json::as_array(hf_json::require(config, "pretokenizers", w), w / "pretokenizers");
        for (size_t i = 0; i < list.size(); ++i)
            add(list[i], (w / "pretokenizers")[i], depth + 1);
    } else if (type == "Split") {
        Step s;
        s.literal = hf_pattern(hf_json::require(config, "pattern", w), w / "pattern", s.regex);
        if (hf_json::bool_or(config, "invert", false, w))
            fail(LLM_ERR_UNSUPPORTED, (w / "invert").str(), ": inverted Split is not supported");
        const std::string &b =
            hf_json::as_string(hf_json::require(config, "behavior", w), w / "behavior");
        if (b == "Isolated")
            s.behavior = Behavior::Isolated;
        else if (b == "Removed")
            s.behavior = Behavior::Removed;
        else if (b == "MergedWithPrevious")
            s.behavior = Behavior::MergedWithPrevious;
        else if (b == "MergedWithNext")
            s.behavior = Behavior::MergedWithNext;
        else if (b == "Contiguous")
            s.behavior = Behavior::Contiguous;
        else
            hf_json::bad(w / "behavior", "unknown behavior '" + b + "'");
        steps_.push_back(std::move(s));
    } else if (type == "ByteLevel") {
        Step s;
        s.add_prefix_space = hf_json::bool_or(config, "add_prefix_space", true, w);
        if (hf_json::bool_or(config, "use_regex", true, w))
            s.regex = std::make_shared<PretokenizerRegex>(kGpt2Pattern, (w / "use_regex").str());
        steps_.push_back(std::move(s));
        byte_level_ = true;
    } else {
        fail(LLM_ERR_UNSUPPORTED, (w / "type").str(), ": pre-tokenizer '", type,
             "' is not supported (Split, ByteLevel, Sequence are)");
    }
}

void HfPreTokenizer::apply(const Step &s, std::string_view piece,
                           std::vector<std::string_view> &out,
                           std::deque<std::string> &storage) const {
    if (s.add_prefix_space && (piece.empty() || piece[0] != ' ')) {
        storage.emplace_back(" ");
        storage.back().append(piece);
        piece = storage.back();
    }
    if (!s.regex && s.literal.empty()) { // ByteLevel without its regex
        if (!piece.empty()) out.push_back(piece);
        return;
    }
    std::vector<std::pair<size_t, size_t>> m;
    if (s.regex) {
        s.regex->find_all(piece, m);
    } else {
        for (size_t at = piece.find(s.literal); at != std::string_view::npos;
             at = piece.find(s.literal, at + s.literal.size()))
            m.emplace_back(at, at + s.literal.size());
    }
    if (s.behavior == Behavior::Contiguous) { // adjacent delimiters form one
        size_t w = 0;
        for (size_t i = 0; i < m.size(); ++i) {
            if (w > 0 && m[w - 1].second == m[i].first)
                m[w - 1].second = m[i].second;
            else
                m[w++] = m[i];
        }
        m.resize(w);
    }
    auto emit = [&](size_t from, size_t to) {
        if (to > from) out.push_back(piece.substr(from, to - from));
    };
    size_t at = 0; // start of the text not yet emitted
    for (const auto &[start, end] : m) {
        switch (s.behavior) {
        case Behavior::Isolated:
        case Behavior::Contiguous:
            emit(at, start);
            emit(start, end);
            at = end;
            break;
        case Behavior::Removed:
            emit(at, start);
            at = end;
            break;
        case Behavior::MergedWithPrevious:
            emit(at, end);
            at = end;
            break;
        case Behavior::MergedWithNext:
            emit(at, start);
            at = start;
            break;
        }
    }
    emit(at, piece.size());
}

void HfPreTokenizer::split(std::string_view text, std::vector<std::string_view> &words,
                           std::deque<std::string> &storage) const {
    if (steps_.empty()) {
        if (!text.empty()) words.push_back(text);
        return;
    }
    std::vector<std::string_view> cur{text}, next;
    for (size_t i = 0; i < steps_.size(); ++i) {
        std::vector<std::string_view> &dst = i + 1 == steps_.size() ? words : next;
        for (std::string_view piece : cur)
            apply(steps_[i], piece, dst, storage);
        if (i + 1 < steps_.size()) {
            cur.swap(next);
            next.clear();
        }
    }
}

} // namespace llm
