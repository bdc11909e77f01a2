#include "chat/jinja_lexer.h"

#include <cstdint>

#include "chat/jinja_error.h"

namespace llm::jinja {

namespace {

// Decodes the UTF-8 code point at s[i] (invalid bytes decode as themselves,
// one byte long).
uint32_t decode_at(std::string_view s, size_t i, size_t &len) {
    const auto b = static_cast<unsigned char>(s[i]);
    auto cont = [&](size_t k) {
        return i + k < s.size() && (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
    };
    auto c = [&](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(s[i + k])); };
    if (b < 0x80) {
        len = 1;
        return b;
    }
    if ((b & 0xE0) == 0xC0 && cont(1)) {
        len = 2;
        return ((b & 0x1Fu) << 6) | (c(1) & 0x3F);
    }
    if ((b & 0xF0) == 0xE0 && cont(1) && cont(2)) {
        len = 3;
        return ((b & 0x0Fu) << 12) | ((c(1) & 0x3F) << 6) | (c(2) & 0x3F);
    }
    if ((b & 0xF8) == 0xF0 && cont(1) && cont(2) && cont(3)) {
        len = 4;
        return ((b & 0x07u) << 18) | ((c(1) & 0x3F) << 12) | ((c(2) & 0x3F) << 6) | (c(3) & 0x3F);
    }
    len = 1;
    return 0xFFFFFFFF;
}

bool is_ws_cp(uint32_t c) {
    if (c <= 32) return c == 32 || (c >= 9 && c <= 13);
    return c == 160 || c == 5760 || (c >= 8192 && c <= 8202) || c == 8232 || c == 8233 ||
           c == 8239 || c == 8287 || c == 12288 || c == 65279;
}

bool is_word(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

// The template after HF's preprocessing, with the source line of each byte.
struct Source {
    std::string text;
    std::vector<int> line;
    void add(char c, int l) {
        text.push_back(c);
        line.push_back(l);
    }
};

Source preprocess(std::string_view tmpl) {
    Source in;
    in.text.reserve(tmpl.size());
    int l = 1;
    for (char c : tmpl) {
        in.add(c, l);
        if (c == '\n') ++l;
    }
    // keep_trailing_newline=False: one final newline goes.
    if (!in.text.empty() && in.text.back() == '\n') {
        in.text.pop_back();
        in.line.pop_back();
    }
    // lstrip_blocks: spaces and tabs from a line start to a {% or {# tag.
    Source a;
    const std::string &t = in.text;
    for (size_t i = 0; i < t.size();) {
        if (i == 0 || t[i - 1] == '\n' || t[i - 1] == '\r') {
            size_t j = i;
            while (j < t.size() && (t[j] == ' ' || t[j] == '\t'))
                ++j;
            if (j > i && j + 1 < t.size() && t[j] == '{' &&
                (t[j + 1] == '#' || t[j + 1] == '%' || t[j + 1] == '-') &&
                !(t[j + 1] == '%' && j + 2 < t.size() && t[j + 2] == '+'))
                i = j;
        }
        size_t end = i + 1;
        while (end < t.size() && t[end - 1] != '\n' && t[end - 1] != '\r')
            ++end;
        for (; i < end; ++i)
            a.add(t[i], in.line[i]);
    }
    // trim_blocks: the newline right after %}, #} (and -}).
    Source b;
    const std::string &u = a.text;
    for (size_t i = 0; i < u.size(); ++i) {
        b.add(u[i], a.line[i]);
        if ((u[i] == '#' || u[i] == '%' || u[i] == '-') && i + 2 < u.size() + 0 &&
            u[i + 1] == '}' && u[i + 2] == '\n') {
            b.add('}', a.line[i + 1]);
            i += 2;
        }
    }
    // {% generation %} / {% endgeneration %} tags vanish ("-" trims as usual).
    Source out;
    const std::string &v = b.text;
    size_t last = 0;
    for (size_t i = 0; i + 1 < v.size(); ++i) {
        if (v[i] != '{' || v[i + 1] != '%') continue;
        size_t j = i + 2;
        const bool lstrip = j < v.size() && v[j] == '-';
        if (lstrip) ++j;
        size_t n;
        while (j < v.size() && (n = whitespace_len(v, j)) > 0)
            j += n;
        if (v.compare(j, 3, "end") == 0) j += 3;
        if (v.compare(j, 10, "generation") != 0) continue;
        j += 10;
        while (j < v.size() && (n = whitespace_len(v, j)) > 0)
            j += n;
        const bool rstrip = j < v.size() && v[j] == '-';
        if (rstrip) ++j;
        if (v.compare(j, 2, "%}") != 0) continue;
        j += 2;
        size_t after = j;
        while (after < v.size() && (n = whitespace_len(v, after)) > 0)
            after += n;
        size_t end = i;
        if (lstrip) {
            std::string_view before(v.data() + last, i - last);
            end = i - trailing_whitespace(before);
        }
        for (size_t k = last; k < end; ++k)
            out.add(v[k], b.line[k]);
        if (!rstrip)
            for (size_t k = j; k < after; ++k)
                out.add(v[k], b.line[k]);
        last = after;
        i = after - 1;
    }
    for (size_t k = last; k < v.size(); ++k)
        out.add(v[k], b.line[k]);
    return out;
}

class Lexer {
  public:
    explicit Lexer(Source s) : src_(std::move(s.text)), line_(std::move(s.line)) {}

    std::vector<Token> run() {
        const size_t n = src_.size();
        while (pos_ < n) {
            const bool after_tag = tokens_.empty() || last() == Tok::CloseStatement ||
                                   last() == Tok::CloseExpression || last() == Tok::Comment;
            if (after_tag) {
                size_t end = pos_;
                while (true) {
                    end = src_.find('{', end);
                    if (end == std::string::npos) {
                        end = n;
                        break;
                    }
                    const char next = end + 1 < n ? src_[end + 1] : '\0';
                    if (next == '%' || next == '{' || next == '#') break;
                    ++end;
                }
                if (end > pos_) {
                    push(Tok::Text, src_.substr(pos_, end - pos_), pos_);
                    pos_ = end;
                    continue;
                }
            }
            if (src_[pos_] == '{' && pos_ + 1 < n) {
                const char next = src_[pos_ + 1];
                if (next == '#') {
                    comment();
                    continue;
                }
                if (next == '%' && raw_block()) continue;
                if (pos_ + 2 < n && src_[pos_ + 2] == '-' && (next == '%' || next == '{')) {
                    strip_trailing_text();
                    push(next == '%' ? Tok::OpenStatement : Tok::OpenExpression,
                         next == '%' ? "{%" : "{{", pos_);
                    brace_depth_ = 0;
                    pos_ += 3;
                    continue;
                }
            }
            skip_whitespace(true);
            const char c = src_[pos_];
            if (c == '-' && pos_ + 2 < n && src_[pos_ + 2] == '}' &&
                (src_[pos_ + 1] == '%' || src_[pos_ + 1] == '}')) {
                push(src_[pos_ + 1] == '%' ? Tok::CloseStatement : Tok::CloseExpression,
                     src_[pos_ + 1] == '%' ? "%}" : "}}", pos_);
                pos_ += 3;
                skip_whitespace(false);
                continue;
            }
            if (c == '-' || c == '+') {
                const bool first = tokens_.empty();
                if (first || last() == Tok::Text) error("unexpected character '", c, "'");
                const Tok lt = last();
                if (lt != Tok::Identifier && lt != Tok::Number && lt != Tok::String &&
                    lt != Tok::CloseParen && lt != Tok::CloseBracket) {
                    const size_t at = pos_++;
                    std::string num = digits();
                    if (!num.empty() && pos_ + 1 < n && src_[pos_] == '.' &&
                        is_digit(src_[pos_ + 1])) {
                        ++pos_;
                        num += "." + digits();
                    }
                    push(num.empty() ? Tok::Unary : Tok::Number, std::string(1, c) + num, at);
                    continue;
                }
            }
            if (operator_token()) continue;
            if (c == '\'' || c == '"') {
                string_literal(c);
                continue;
            }
            if (is_digit(c)) {
                const size_t at = pos_;
                std::string num = digits();
                if (last_is_not(Tok::Dot) && pos_ + 1 < n && src_[pos_] == '.' &&
                    is_digit(src_[pos_ + 1])) {
                    ++pos_;
                    num += "." + digits();
                }
                push(Tok::Number, num, at);
                continue;
            }
            if (is_word(c)) {
                const size_t at = pos_;
                while (pos_ < n && is_word(src_[pos_]))
                    ++pos_;
                push(Tok::Identifier, src_.substr(at, pos_ - at), at);
                continue;
            }
            error("unexpected character '", c, "'");
        }
        return std::move(tokens_);
    }

  private:
    std::string src_;
    std::vector<int> line_;
    size_t pos_ = 0;
    int brace_depth_ = 0;
    std::vector<Token> tokens_;

    Tok last() const { return tokens_.back().type; }
    bool last_is_not(Tok t) const { return tokens_.empty() || last() != t; }
    int line_at(size_t i) const {
        if (line_.empty()) return 1;
        return line_[i < line_.size() ? i : line_.size() - 1];
    }
    template <typename... P> [[noreturn]] void error(const P &...p) const {
        fail_at(line_at(pos_), p...);
    }
    void push(Tok t, std::string v, size_t at) {
        tokens_.push_back({t, std::move(v), line_at(at)});
    }

    // Inside a tag, where running off the end is an error (as in HF).
    void skip_whitespace(bool must_continue) {
        size_t k;
        while (pos_ < src_.size() && (k = whitespace_len(src_, pos_)) > 0)
            pos_ += k;
        if (must_continue && pos_ >= src_.size()) error("unexpected end of template");
    }
    std::string digits() {
        const size_t at = pos_;
        while (pos_ < src_.size() && is_digit(src_[pos_]))
            ++pos_;
        if (pos_ >= src_.size()) error("unexpected end of template");
        return src_.substr(at, pos_ - at);
    }
    void strip_trailing_text() {
        if (tokens_.empty() || last() != Tok::Text) return;
        std::string &v = tokens_.back().value;
        v.resize(v.size() - trailing_whitespace(v));
        if (v.empty()) tokens_.pop_back();
    }

    void comment() {
        const size_t at = pos_;
        pos_ += 2;
        const bool strip_before = pos_ < src_.size() && src_[pos_] == '-';
        if (strip_before) ++pos_;
        const size_t end = src_.find("#}", pos_);
        if (end == std::string::npos) error("unterminated comment");
        std::string text = src_.substr(pos_, end - pos_);
        const bool strip_after = !text.empty() && text.back() == '-';
        if (strip_after) text.pop_back();
        if (strip_before) strip_trailing_text();
        push(Tok::Comment, std::move(text), at);
        pos_ = end + 2;
        if (strip_after) skip_whitespace(false);
    }

    // Reads "{%[-] raw [-]%}" at pos_: on a match, sets `after` past it and
    // the two strip flags.
    bool match_tag(size_t at, const char *name, size_t &after, bool &lstrip, bool &rstrip) const {
        size_t j = at + 2, k;
        lstrip = j < src_.size() && src_[j] == '-';
        if (lstrip) ++j;
        while (j < src_.size() && (k = whitespace_len(src_, j)) > 0)
            j += k;
        const std::string_view nm(name);
        if (src_.compare(j, nm.size(), nm) != 0) return false;
        j += nm.size();
        if (j < src_.size() && is_word(src_[j])) return false;
        while (j < src_.size() && (k = whitespace_len(src_, j)) > 0)
            j += k;
        rstrip = j < src_.size() && src_[j] == '-';
        if (rstrip) ++j;
        if (src_.compare(j, 2, "%}") != 0) return false;
        after = j + 2;
        return true;
    }

    // {% raw %}...{% endraw %}: the body is text as it stands.
    bool raw_block() {
        size_t after;
        bool lstrip, rstrip;
        if (!match_tag(pos_, "raw", after, lstrip, rstrip)) return false;
        const size_t open_at = pos_;
        if (lstrip) strip_trailing_text();
        size_t body = after;
        if (rstrip) {
            size_t k;
            while (body < src_.size() && (k = whitespace_len(src_, body)) > 0)
                body += k;
        }
        for (size_t at = src_.find("{%", body); at != std::string::npos;
             at = src_.find("{%", at + 1)) {
            size_t end_after;
            bool el, er;
            if (!match_tag(at, "endraw", end_after, el, er)) continue;
            std::string text = src_.substr(body, at - body);
            if (el) text.resize(text.size() - trailing_whitespace(text));
            // A text token that follows a tag: the parser sees it as text.
            push(Tok::Comment, "", open_at);
            if (!text.empty()) push(Tok::Text, std::move(text), body);
            push(Tok::Comment, "", at);
            pos_ = end_after;
            if (er) skip_whitespace(false);
            return true;
        }
        pos_ = open_at;
        error("{% raw %} without {% endraw %}");
    }

    bool operator_token() {
        static const struct {
            const char *seq;
            Tok type;
        } table[] = {
            {"{%", Tok::OpenStatement},  {"%}", Tok::CloseStatement},
            {"{{", Tok::OpenExpression}, {"}}", Tok::CloseExpression},
            {"(", Tok::OpenParen},       {")", Tok::CloseParen},
            {"{", Tok::OpenBrace},       {"}", Tok::CloseBrace},
            {"[", Tok::OpenBracket},     {"]", Tok::CloseBracket},
            {",", Tok::Comma},           {".", Tok::Dot},
            {":", Tok::Colon},           {"|", Tok::Pipe},
            {"<=", Tok::Comparison},     {">=", Tok::Comparison},
            {"==", Tok::Comparison},     {"!=", Tok::Comparison},
            {"<", Tok::Comparison},      {">", Tok::Comparison},
            {"+", Tok::Additive},        {"-", Tok::Additive},
            {"~", Tok::Additive},        {"**", Tok::Power},
            {"*", Tok::Multiplicative},  {"//", Tok::Multiplicative},
            {"/", Tok::Multiplicative},  {"%", Tok::Multiplicative},
            {"=", Tok::Equals},
        };
        for (const auto &r : table) {
            const std::string_view seq(r.seq);
            if (seq == "}}" && brace_depth_ > 0) continue;
            if (src_.compare(pos_, seq.size(), seq) != 0) continue;
            if (r.type == Tok::OpenExpression) brace_depth_ = 0;
            if (r.type == Tok::OpenBrace) ++brace_depth_;
            if (r.type == Tok::CloseBrace) --brace_depth_;
            push(r.type, std::string(seq), pos_);
            pos_ += seq.size();
            // {%+ (Jinja2: keep the indentation lstrip_blocks would remove).
            if (r.type == Tok::OpenStatement && pos_ < src_.size() && src_[pos_] == '+') ++pos_;
            return true;
        }
        return false;
    }

    static void append_utf8(std::string &out, uint32_t cp) {
        if (cp < 0x80) {
            out += static_cast<char>(cp);
        } else if (cp < 0x800) {
            out += static_cast<char>(0xC0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
            out += static_cast<char>(0xE0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        }
    }

    void string_literal(char quote) {
        const size_t at = pos_++;
        std::string s;
        while (true) {
            if (pos_ >= src_.size()) error("unterminated string literal");
            const char c = src_[pos_++];
            if (c == quote) break;
            if (c != '\\') {
                s += c;
                continue;
            }
            if (pos_ >= src_.size()) error("unterminated string literal");
            const char e = src_[pos_++];
            switch (e) {
            case 'n': s += '\n'; break;
            case 't': s += '\t'; break;
            case 'r': s += '\r'; break;
            case 'b': s += '\b'; break;
            case 'f': s += '\f'; break;
            case 'v': s += '\v'; break;
            case '\'': s += '\''; break;
            case '"': s += '"'; break;
            case '\\': s += '\\'; break;
            case 'x':
            case 'u': {
                const size_t len = e == 'x' ? 2 : 4;
                uint32_t cp = 0;
                for (size_t k = 0; k < len; ++k) {
                    const char h = pos_ + k < src_.size() ? src_[pos_ + k] : '\0';
                    int d = h >= '0' && h <= '9'   ? h - '0'
                            : h >= 'a' && h <= 'f' ? h - 'a' + 10
                            : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                                   : -1;
                    if (d < 0) error("invalid \\", e, " escape in a string literal");
                    cp = cp * 16 + static_cast<uint32_t>(d);
                }
                pos_ += len;
                append_utf8(s, cp);
                break;
            }
            default: error("unknown escape \\", e, " in a string literal");
            }
        }
        push(Tok::String, std::move(s), at);
    }
};

} // namespace

size_t whitespace_len(std::string_view s, size_t i) {
    if (i >= s.size()) return 0;
    size_t len;
    const uint32_t c = decode_at(s, i, len);
    return is_ws_cp(c) ? len : 0;
}

size_t trailing_whitespace(std::string_view s) {
    size_t end = s.size();
    while (end > 0) {
        // Step back to the start of the last code point.
        size_t start = end - 1;
        while (start > 0 && end - start < 4 &&
               (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80)
            --start;
        size_t len;
        const uint32_t c = decode_at(s, start, len);
        if (start + len != end || !is_ws_cp(c)) break;
        end = start;
    }
    return s.size() - end;
}

size_t leading_whitespace(std::string_view s) {
    size_t i = 0, k;
    while ((k = whitespace_len(s, i)) > 0)
        i += k;
    return i;
}

std::vector<Token> tokenize(std::string_view source) {
    return Lexer(preprocess(source)).run();
}

} // namespace llm::jinja
