#include "tokenizer/hf_decoder.h"

#include "common/error.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/replace_all.h"
#include "tokenizer/utf8.h"

namespace llm {

using hf_json::Json;
using hf_json::Where;

namespace {
constexpr int kMaxDepth = 8;

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// "<0xAB>" -> 0xAB, else -1.
int byte_token(std::string_view t) {
    if (t.size() != 6 || t.substr(0, 3) != "<0x" || t[5] != '>') return -1;
    int hi = hex_digit(t[3]), lo = hex_digit(t[4]);
    return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

size_t count_or_zero(const Json &config, const char *key, const Where &w) {
    const Json *v = hf_json::member(config, key);
    return v ? static_cast<size_t>(hf_json::as_int(*v, 0, 1 << 20, w / key)) : 0;
}
} // namespace

HfDecoder::HfDecoder(const Json *config, const Where &w) {
    if (config)
        add(*config, w, 0);
    else
        join_with_spaces_ = true;
}

void HfDecoder::add(const Json &config, const Where &w, int depth) {
    if (depth > kMaxDepth) hf_json::bad(w, "Sequence nested too deeply");
    hf_json::as_object(config, w);
    const std::string &type = hf_json::as_string(hf_json::require(config, "type", w), w / "type");
    auto after_fuse = [&] {
        fail(LLM_ERR_UNSUPPORTED, (w / "type").str(), ": decoder '", type,
             "' after Fuse is not supported (only Strip of leading characters is)");
    };
    if (type == "Sequence") {
        const Json &list =
            hf_json::as_array(hf_json::require(config, "decoders", w), w / "decoders");
        for (size_t i = 0; i < list.size(); ++i)
            add(list[i], (w / "decoders")[i], depth + 1);
    } else if (type == "Fuse") {
        fused_ = true;
    } else if (type == "Strip") {
        Step s{Step::Strip, {}, {}, 0, 0};
        s.from = hf_json::as_string(hf_json::require(config, "content", w), w / "content");
        if (s.from.empty() ||
            utf8_decode(s.from.data(), s.from.data() + s.from.size()).len != s.from.size())
            hf_json::bad(w / "content", "expected one character");
        s.start = count_or_zero(config, "start", w);
        s.stop = count_or_zero(config, "stop", w);
        if (!fused_) {
            steps_.push_back(std::move(s));
        } else if (s.stop == 0 && s.start <= 1 && leading_strip_.empty()) {
            if (s.start == 1) leading_strip_ = s.from;
        } else {
            fail(LLM_ERR_UNSUPPORTED, w.str(),
                 ": Strip after Fuse is supported for start <= 1 and stop 0 only");
        }
    } else if (fused_) {
        after_fuse();
    } else if (type == "ByteLevel") {
        steps_.push_back({Step::ByteLevel, {}, {}, 0, 0});
        fused_ = true; // HF's ByteLevel decoder joins the tokens into one text
    } else if (type == "ByteFallback") {
        steps_.push_back({Step::ByteFallback, {}, {}, 0, 0});
    } else if (type == "Replace") {
        const Where pw = w / "pattern";
        const Json &pattern = hf_json::as_object(hf_json::require(config, "pattern", w), pw);
        const Json *s = hf_json::member(pattern, "String");
        if (!s)
            fail(LLM_ERR_UNSUPPORTED, pw.str(), ": only String patterns are supported in decoders");
        Step step{Step::Replace, hf_json::as_string(*s, pw / "String"),
                  hf_json::as_string(hf_json::require(config, "content", w), w / "content"), 0, 0};
        if (step.from.empty()) hf_json::bad(pw / "String", "empty pattern");
        steps_.push_back(std::move(step));
    } else {
        fail(LLM_ERR_UNSUPPORTED, (w / "type").str(), ": decoder '", type,
             "' is not supported (ByteLevel, Replace, ByteFallback, Fuse, Strip, Sequence are)");
    }
}

std::string HfDecoder::piece(std::string_view token) const {
    std::string cur(token), next;
    for (const Step &s : steps_) {
        next.clear();
        switch (s.kind) {
        case Step::ByteLevel:
            // Tokens with characters outside the alphabet (added tokens such
            // as CJK text) keep their own bytes, as HF does.
            if (!byte_level_decode(cur, next)) continue;
            break;
        case Step::ByteFallback: {
            int b = byte_token(cur);
            if (b < 0) continue;
            next.push_back(static_cast<char>(b));
            break;
        }
        case Step::Replace:
            if (!replace_all(cur, s.from, s.to, next)) continue;
            break;
        case Step::Strip: {
            size_t begin = 0, end = cur.size();
            for (size_t i = 0; i < s.start && cur.compare(begin, s.from.size(), s.from) == 0; ++i)
                begin += s.from.size();
            for (size_t i = 0; i < s.stop && end >= begin + s.from.size() &&
                               cur.compare(end - s.from.size(), s.from.size(), s.from) == 0;
                 ++i)
                end -= s.from.size();
            next.assign(cur, begin, end - begin);
            break;
        }
        }
        cur.swap(next);
    }
    return cur;
}

} // namespace llm
