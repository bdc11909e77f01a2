#include "tokenizer/hf_normalizer.h"

#include "common/error.h"
#include "tokenizer/replace_all.h"
#include "tokenizer/unicode_normalize.h"

namespace llm {

using hf_json::Json;
using hf_json::Where;

namespace {
constexpr int kMaxDepth = 8; // nesting of Sequence
}

std::string hf_pattern(const Json &pattern, const Where &w,
                       std::shared_ptr<PretokenizerRegex> &regex) {
    hf_json::as_object(pattern, w);
    if (const Json *s = hf_json::member(pattern, "String")) {
        const std::string &text = hf_json::as_string(*s, w / "String");
        if (text.empty()) hf_json::bad(w / "String", "empty pattern");
        return text;
    }
    if (const Json *r = hf_json::member(pattern, "Regex")) {
        regex = std::make_shared<PretokenizerRegex>(hf_json::as_string(*r, w / "Regex"),
                                                    (w / "Regex").str());
        return {};
    }
    hf_json::bad(w, "expected {\"String\": ...} or {\"Regex\": ...}");
}

HfNormalizer::HfNormalizer(const Json *config, const Where &w) {
    if (config) add(*config, w, 0);
}

void HfNormalizer::add(const Json &config, const Where &w, int depth) {
    if (depth > kMaxDepth) hf_json::bad(w, "Sequence nested too deeply");
    hf_json::as_object(config, w);
    const std::string &type = hf_json::as_string(hf_json::require(config, "type", w), w / "type");
    if (type == "Sequence") {
        const Json &list =
            hf_json::as_array(hf_json::require(config, "normalizers", w), w / "normalizers");
        for (size_t i = 0; i < list.size(); ++i)
            add(list[i], (w / "normalizers")[i], depth + 1);
    } else if (type == "NFC") {
        steps_.push_back({Step::Nfc, {}, {}, nullptr});
    } else if (type == "Prepend") {
        steps_.push_back({Step::Prepend,
                          hf_json::as_string(hf_json::require(config, "prepend", w), w / "prepend"),
                          {},
                          nullptr});
    } else if (type == "Replace") {
        Step s{Step::Replace, {}, {}, nullptr};
        s.text = hf_pattern(hf_json::require(config, "pattern", w), w / "pattern", s.regex);
        s.replacement = hf_json::as_string(hf_json::require(config, "content", w), w / "content");
        steps_.push_back(std::move(s));
    } else {
        fail(LLM_ERR_UNSUPPORTED, (w / "type").str(), ": normalizer '", type,
             "' is not supported (NFC, Prepend, Replace, Sequence are)");
    }
}

std::string_view HfNormalizer::apply(std::string_view text, std::string &buffer) const {
    std::string scratch;
    std::string_view cur = text;
    for (const Step &s : steps_) {
        // Each step reads cur and writes scratch, which then becomes buffer.
        scratch.clear();
        switch (s.kind) {
        case Step::Nfc:
            if (!nfc_normalize(cur, scratch)) continue;
            break;
        case Step::Prepend:
            if (cur.empty()) continue; // HF prepends to non-empty text only
            scratch.reserve(s.text.size() + cur.size());
            scratch.append(s.text).append(cur);
            break;
        case Step::Replace: {
            size_t at = 0;
            if (s.regex) {
                std::vector<std::pair<size_t, size_t>> matches;
                s.regex->find_all(cur, matches);
                if (matches.empty()) continue;
                for (const auto &m : matches) {
                    scratch.append(cur.substr(at, m.first - at)).append(s.replacement);
                    at = m.second;
                }
                scratch.append(cur.substr(at));
            } else if (!replace_all(cur, s.text, s.replacement, scratch)) {
                continue;
            }
            break;
        }
        }
        buffer.swap(scratch);
        cur = buffer;
    }
    return cur;
}

} // namespace llm
