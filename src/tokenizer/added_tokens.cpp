#include "tokenizer/added_tokens.h"

#include <algorithm>

#include "tokenizer/unicode_data.h"
#include "tokenizer/utf8.h"

namespace llm {

AddedTokenMatcher::AddedTokenMatcher(std::vector<AddedToken> tokens) : tokens_(std::move(tokens)) {
    for (size_t i = 0; i < tokens_.size(); ++i)
        if (!tokens_[i].content.empty())
            by_first_byte_[static_cast<uint8_t>(tokens_[i].content[0])].push_back(
                static_cast<int>(i));
    for (auto &list : by_first_byte_)
        std::stable_sort(list.begin(), list.end(), [&](int a, int b) {
            return tokens_[static_cast<size_t>(a)].content.size() >
                   tokens_[static_cast<size_t>(b)].content.size();
        });
}

int AddedTokenMatcher::longest_at(std::string_view text, size_t pos, bool with_special) const {
    for (int i : by_first_byte_[static_cast<uint8_t>(text[pos])]) {
        const AddedToken &t = tokens_[static_cast<size_t>(i)];
        if (t.special && !with_special) continue;
        if (text.compare(pos, t.content.size(), t.content) == 0) return i;
    }
    return -1;
}

void AddedTokenMatcher::split(std::string_view text, bool with_special,
                              std::vector<Segment> &out) const {
    const char *base = text.data(), *end = base + text.size();
    size_t plain_start = 0; // start of the plain text not yet emitted
    auto emit_plain = [&](size_t from, size_t to) {
        if (to > from) out.push_back({text.substr(from, to - from), -1});
    };
    for (size_t pos = 0; pos < text.size();) {
        if (by_first_byte_[static_cast<uint8_t>(text[pos])].empty()) { // the common case
            ++pos;
            continue;
        }
        int i = longest_at(text, pos, with_special);
        if (i < 0) {
            ++pos;
            continue;
        }
        const AddedToken &t = tokens_[static_cast<size_t>(i)];
        size_t start = pos, stop = pos + t.content.size();
        if (t.lstrip)
            while (start > plain_start) {
                const char *prev = utf8_previous(base + plain_start, base + start);
                if (!is_white_space(utf8_decode(prev, end).cp)) break;
                start = static_cast<size_t>(prev - base);
            }
        if (t.rstrip)
            while (stop < text.size()) {
                Utf8Char c = utf8_decode(base + stop, end);
                if (!is_white_space(c.cp)) break;
                stop += c.len;
            }
        emit_plain(plain_start, start);
        out.push_back({text.substr(pos, t.content.size()), t.id});
        plain_start = pos = stop;
    }
    emit_plain(plain_start, text.size());
}

} // namespace llm
