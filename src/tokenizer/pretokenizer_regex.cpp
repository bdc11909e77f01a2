#include "tokenizer/pretokenizer_regex.h"

#include <algorithm>
#include <cstring>

#include "common/error.h"
#include "tokenizer/unicode_data.h"
#include "tokenizer/utf8.h"

namespace llm {

namespace {
constexpr int kMaxRepeat = 1000;
constexpr size_t kMaxProgram = 100000;
// Backtracking steps allowed per match attempt: well-behaved patterns need
// a few per character of the match (the Qwen2 pattern about 3 on a run of
// spaces); this only stops patterns whose backtracking explodes.
uint64_t step_budget(size_t remaining_bytes) {
    return 1'000'000 + 64 * uint64_t{remaining_bytes};
}

using GC = GeneralCategory;

int props_index(uint8_t props) {
    return (props & kPropCategoryMask) * 2 + ((props & kPropWhiteSpace) ? 1 : 0);
}

// Bit set over (category, white_space) of the categories in [first, last].
uint64_t category_mask(GC first, GC last) {
    uint64_t m = 0;
    for (int c = static_cast<int>(first); c <= static_cast<int>(last); ++c)
        m |= uint64_t{3} << (c * 2);
    return m;
}
uint64_t category_mask(GC c) {
    return category_mask(c, c);
}

constexpr uint64_t kAllProps = (uint64_t{1} << (kGeneralCategoryCount * 2)) - 1;

uint64_t white_space_mask() {
    uint64_t m = 0;
    for (int c = 0; c < kGeneralCategoryCount; ++c)
        m |= uint64_t{2} << (c * 2);
    return m;
}

// \p{name}: a general category or a group of them.
bool property_mask(const std::string &name, uint64_t &mask) {
    struct Entry {
        const char *name;
        GC first, last;
    };
    static const Entry kEntries[] = {
        {"L", GC::Lu, GC::Lo},  {"Lu", GC::Lu, GC::Lu}, {"Ll", GC::Ll, GC::Ll},
        {"Lt", GC::Lt, GC::Lt}, {"Lm", GC::Lm, GC::Lm}, {"Lo", GC::Lo, GC::Lo},
        {"M", GC::Mn, GC::Me},  {"Mn", GC::Mn, GC::Mn}, {"Mc", GC::Mc, GC::Mc},
        {"Me", GC::Me, GC::Me}, {"N", GC::Nd, GC::No},  {"Nd", GC::Nd, GC::Nd},
        {"Nl", GC::Nl, GC::Nl}, {"No", GC::No, GC::No}, {"P", GC::Pc, GC::Po},
        {"Pc", GC::Pc, GC::Pc}, {"Pd", GC::Pd, GC::Pd}, {"Ps", GC::Ps, GC::Ps},
        {"Pe", GC::Pe, GC::Pe}, {"Pi", GC::Pi, GC::Pi}, {"Pf", GC::Pf, GC::Pf},
        {"Po", GC::Po, GC::Po}, {"S", GC::Sm, GC::So},  {"Sm", GC::Sm, GC::Sm},
        {"Sc", GC::Sc, GC::Sc}, {"Sk", GC::Sk, GC::Sk}, {"So", GC::So, GC::So},
        {"Z", GC::Zs, GC::Zp},  {"Zs", GC::Zs, GC::Zs}, {"Zl", GC::Zl, GC::Zl},
        {"Zp", GC::Zp, GC::Zp}, {"C", GC::Cc, GC::Cn},  {"Cc", GC::Cc, GC::Cc},
        {"Cf", GC::Cf, GC::Cf}, {"Cs", GC::Cs, GC::Cs}, {"Co", GC::Co, GC::Co},
        {"Cn", GC::Cn, GC::Cn},
    };
    for (const Entry &e : kEntries) {
        if (name == e.name) {
            mask = category_mask(e.first, e.last);
            return true;
        }
    }
    return false;
}

struct Node {
    enum Kind { Empty, Char, Class, Seq, Alt, Repeat, Look } kind = Empty;
    uint32_t cp = 0;
    int32_t cls = 0;
    std::vector<Node> kids;
    int min = 0, max = 0; // Repeat; max -1 = unbounded
    bool greedy = true;
    bool negative = false; // Look
};

bool nullable(const Node &n) {
    switch (n.kind) {
    case Node::Char:
    case Node::Class: return false;
    case Node::Seq:
        return std::all_of(n.kids.begin(), n.kids.end(), [](const Node &k) { return nullable(k); });
    case Node::Alt:
        return std::any_of(n.kids.begin(), n.kids.end(), [](const Node &k) { return nullable(k); });
    case Node::Repeat: return n.min == 0 || nullable(n.kids[0]);
    default: return true;
    }
}
} // namespace

bool PretokenizerRegex::CharClass::contains(uint32_t cp) const {
    if (cp < 128) return (ascii[cp >> 6] >> (cp & 63)) & 1;
    bool raw = (by_props >> props_index(unicode_props(cp))) & 1;
    if (!raw) {
        for (const auto &r : ranges) {
            if (cp < r.first) break;
            if (cp <= r.second) {
                raw = true;
                break;
            }
        }
    }
    return raw != negated;
}

// Recursive-descent parser from pattern text to Node, then code generation.
class RegexCompiler {
  public:
    RegexCompiler(PretokenizerRegex &re, std::string_view pattern) : re_(re) {
        const char *p = pattern.data(), *end = p + pattern.size();
        while (p < end) {
            Utf8Char c = utf8_decode(p, end);
            if (!c.valid()) error("the pattern is not valid UTF-8");
            cps_.push_back(c.cp);
            p += c.len;
        }
    }

    void compile() {
        Node root = parse_alternation(false);
        if (pos_ < cps_.size()) error("unbalanced ')'");
        emit(root);
        re_.code_.push_back({PretokenizerRegex::Op::Match});
        re_.split_filter_.resize(re_.code_.size());
        for (size_t pc = 0; pc < re_.code_.size(); ++pc) {
            const auto &in = re_.code_[pc];
            if (in.op != Op::Split) continue;
            auto &f = re_.split_filter_[pc];
            f = {{0, 0}, {0, 0}};
            int budget = 256;
            re_.first_chars(in.a, budget, f.a);
            budget = 256;
            re_.first_chars(in.b, budget, f.b);
        }
    }

  private:
    using Op = PretokenizerRegex::Op;

    [[noreturn]] void error(const char *what) const {
        fail(LLM_ERR_UNSUPPORTED, re_.field_, ": regex not supported by libllm (", what,
             " at character ", pos_, ")");
    }
    bool at_end() const { return pos_ >= cps_.size(); }
    uint32_t peek(size_t ahead = 0) const {
        return pos_ + ahead < cps_.size() ? cps_[pos_ + ahead] : 0xFFFFFFFF;
    }
    bool accept(uint32_t c) {
        if (peek() != c) return false;
        ++pos_;
        return true;
    }

    Node parse_alternation(bool icase) {
        Node alt;
        alt.kind = Node::Alt;
        alt.kids.push_back(parse_sequence(icase));
        while (accept('|'))
            alt.kids.push_back(parse_sequence(icase));
        return alt.kids.size() == 1 ? std::move(alt.kids[0]) : alt;
    }

    Node parse_sequence(bool icase) {
        Node seq;
        seq.kind = Node::Seq;
        while (!at_end() && peek() != '|' && peek() != ')') {
            Node atom = parse_atom(icase);
            seq.kids.push_back(parse_quantifier(std::move(atom)));
        }
        return seq;
    }

    Node parse_quantifier(Node atom) {
        int min, max;
        uint32_t c = peek();
        if (c == '?') {
            min = 0, max = 1;
        } else if (c == '*') {
            min = 0, max = -1;
        } else if (c == '+') {
            min = 1, max = -1;
        } else if (c == '{') {
            ++pos_;
            min = parse_number();
            max = min;
            if (accept(',')) max = peek() == '}' ? -1 : parse_number();
            if (peek() != '}') error("malformed {n,m}");
            if (max != -1 && max < min) error("{n,m} with m < n");
        } else {
            return atom;
        }
        ++pos_;
        if (atom.kind == Node::Look) error("quantified lookahead");
        Node rep;
        rep.kind = Node::Repeat;
        rep.min = min;
        rep.max = max;
        if (accept('?'))
            rep.greedy = false;
        else if (peek() == '+')
            error("possessive quantifier");
        if (peek() == '?' || peek() == '*' || peek() == '+' || peek() == '{')
            error("nested quantifier");
        rep.kids.push_back(std::move(atom));
        return rep;
    }

    int parse_number() {
        if (peek() < '0' || peek() > '9') error("malformed {n,m}");
        int v = 0;
        while (peek() >= '0' && peek() <= '9') {
            v = v * 10 + static_cast<int>(peek() - '0');
            if (v > kMaxRepeat) error("repeat count above 1000");
            ++pos_;
        }
        return v;
    }

    Node parse_atom(bool icase) {
        uint32_t c = peek();
        ++pos_;
        switch (c) {
        case '(': return parse_group(icase);
        case '[': return parse_class(icase);
        case '.': {
            PretokenizerRegex::CharClass cls;
            cls.negated = true;
            cls.ranges.push_back({'\n', '\n'});
            return class_node(std::move(cls));
        }
        case '\\': {
            PretokenizerRegex::CharClass cls;
            uint32_t literal;
            if (parse_escape(cls, literal)) return class_node(std::move(cls));
            return literal_node(literal, icase);
        }
        case '^':
        case '$': error("anchor");
        case '*':
        case '+':
        case '?':
        case '{': error("quantifier with nothing to repeat");
        default: return literal_node(c, icase);
        }
    }

    Node parse_group(bool icase) {
        Node inner;
        if (accept('?')) {
            if (accept(':')) {
                inner = parse_alternation(icase);
            } else if (accept('i')) {
                if (!accept(':')) error("inline flags other than (?i:");
                inner = parse_alternation(true);
            } else if (peek() == '=' || peek() == '!') {
                Node look;
                look.kind = Node::Look;
                look.negative = peek() == '!';
                ++pos_;
                look.kids.push_back(parse_alternation(icase));
                inner = std::move(look);
            } else {
                error("group kind (only (?: (?i: (?= (?! are known)");
            }
        } else {
            inner = parse_alternation(icase); // a capturing group: captures are not needed
        }
        if (!accept(')')) error("missing ')'");
        return inner;
    }

    // After a backslash. Returns true if it named a class (filled into cls),
    // false if it was a literal character (stored in literal).
    bool parse_escape(PretokenizerRegex::CharClass &cls, uint32_t &literal) {
        if (at_end()) error("trailing backslash");
        uint32_t c = peek();
        ++pos_;
        uint64_t mask = 0;
        bool complement = false;
        switch (c) {
        case 's': mask = white_space_mask(); break;
        case 'S': mask = white_space_mask(), complement = true; break;
        case 'd': mask = category_mask(GC::Nd); break;
        case 'D': mask = category_mask(GC::Nd), complement = true; break;
        case 'w': mask = category_mask(GC::Lu, GC::Nd) | category_mask(GC::Nd, GC::Pc); break;
        case 'W':
            mask = category_mask(GC::Lu, GC::Nd) | category_mask(GC::Nd, GC::Pc);
            complement = true;
            break;
        case 'p':
        case 'P': {
            std::string name;
            if (accept('{')) {
                while (!at_end() && peek() != '}' && name.size() < 32)
                    name.push_back(static_cast<char>(peek() & 0x7F)), ++pos_;
                if (!accept('}')) error("malformed \\p{...}");
            } else if (!at_end()) {
                name.push_back(static_cast<char>(peek() & 0x7F)), ++pos_;
            }
            if (!property_mask(name, mask)) error("unknown \\p property (general categories only)");
            complement = c == 'P';
            break;
        }
        default: literal = escaped_literal(c); return false;
        }
        cls.by_props |= complement ? (~mask & kAllProps) : mask;
        return true;
    }

    uint32_t escaped_literal(uint32_t c) {
        switch (c) {
        case 'r': return '\r';
        case 'n': return '\n';
        case 't': return '\t';
        case 'f': return '\f';
        case 'v': return '\v';
        case '0': return 0;
        case 'x':
            if (accept('{')) {
                uint32_t v = parse_hex(1, 6);
                if (!accept('}')) error("malformed \\x{...}");
                return checked_cp(v);
            }
            return parse_hex(2, 2);
        case 'u': return checked_cp(parse_hex(4, 4));
        default:
            if (c < 128 &&
                !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
                return c; // escaped punctuation stands for itself
            error("escape sequence");
        }
    }

    uint32_t parse_hex(int min_digits, int max_digits) {
        uint32_t v = 0;
        int n = 0;
        for (; n < max_digits; ++n) {
            uint32_t c = peek();
            int d = c >= '0' && c <= '9'   ? static_cast<int>(c - '0')
                    : c >= 'a' && c <= 'f' ? static_cast<int>(c - 'a' + 10)
                    : c >= 'A' && c <= 'F' ? static_cast<int>(c - 'A' + 10)
                                           : -1;
            if (d < 0) break;
            v = v * 16 + static_cast<uint32_t>(d);
            ++pos_;
        }
        if (n < min_digits) error("malformed hex escape");
        return v;
    }

    uint32_t checked_cp(uint32_t v) {
        if (v > kMaxCodePoint || (v >= 0xD800 && v <= 0xDFFF)) error("escape outside Unicode");
        return v;
    }

    Node parse_class(bool icase) {
        PretokenizerRegex::CharClass cls;
        cls.negated = accept('^');
        bool first = true;
        while (!at_end() && (first || peek() != ']')) {
            first = false;
            uint32_t c = peek();
            ++pos_;
            uint32_t lo;
            if (c == '[') error("nested class or POSIX bracket");
            if (c == '&' && peek() == '&') error("class intersection &&");
            if (c == '\\') {
                if (parse_escape(cls, lo)) continue;
            } else {
                lo = c;
            }
            uint32_t hi = lo;
            if (peek() == '-' && peek(1) != ']' && pos_ + 1 < cps_.size()) {
                ++pos_;
                uint32_t h = peek();
                ++pos_;
                if (h == '[') error("nested class in a range");
                if (h == '\\') {
                    PretokenizerRegex::CharClass dummy;
                    if (parse_escape(dummy, hi)) error("class escape as a range end");
                } else {
                    hi = h;
                }
                if (hi < lo) error("range out of order");
            }
            add_range(cls, lo, hi, icase);
        }
        if (!accept(']')) error("missing ']'");
        if (icase && (cls.by_props & (category_mask(GC::Lu, GC::Lt))) &&
            (cls.by_props & category_mask(GC::Lu, GC::Lt)) != category_mask(GC::Lu, GC::Lt))
            error("case-sensitive category inside (?i:");
        return class_node(std::move(cls));
    }

    void add_range(PretokenizerRegex::CharClass &cls, uint32_t lo, uint32_t hi, bool icase) {
        cls.ranges.push_back({lo, hi});
        if (!icase) return;
        using namespace unicode_tables;
        for (size_t i = 0; i < kCaseFoldCount; ++i) {
            const CaseFold &f = kCaseFolds[i];
            bool hit = (f.cp >= lo && f.cp <= hi) || (f.folded >= lo && f.folded <= hi);
            if (hit) for_each_case_variant(f.cp, [&](uint32_t v) { cls.ranges.push_back({v, v}); });
        }
    }

    Node literal_node(uint32_t c, bool icase) {
        if (icase) {
            PretokenizerRegex::CharClass cls;
            add_range(cls, c, c, true);
            if (cls.ranges.size() > 1) return class_node(std::move(cls));
        }
        Node n;
        n.kind = Node::Char;
        n.cp = c;
        return n;
    }

    Node class_node(PretokenizerRegex::CharClass cls) {
        auto &r = cls.ranges;
        std::sort(r.begin(), r.end());
        std::vector<std::pair<uint32_t, uint32_t>> merged;
        for (const auto &x : r) {
            if (!merged.empty() && x.first <= merged.back().second + 1)
                merged.back().second = std::max(merged.back().second, x.second);
            else
                merged.push_back(x);
        }
        r = std::move(merged);
        for (uint32_t c = 0; c < 128; ++c) {
            bool raw = ((cls.by_props >> props_index(unicode_props(c))) & 1) != 0;
            for (const auto &x : r)
                raw = raw || (c >= x.first && c <= x.second);
            if (raw != cls.negated) cls.ascii[c >> 6] |= uint64_t{1} << (c & 63);
        }
        r.erase(std::remove_if(r.begin(), r.end(), [](const auto &x) { return x.second < 128; }),
                r.end());
        Node n;
        n.kind = Node::Class;
        n.cls = static_cast<int32_t>(re_.classes_.size());
        re_.classes_.push_back(std::move(cls));
        return n;
    }

    int32_t here() const { return static_cast<int32_t>(re_.code_.size()); }
    size_t add(PretokenizerRegex::Inst inst) {
        if (re_.code_.size() >= kMaxProgram) error("pattern too large once repeats are expanded");
        re_.code_.push_back(inst);
        return re_.code_.size() - 1;
    }

    int32_t single_char_class(const Node &n) {
        if (n.kind == Node::Class) return n.cls;
        PretokenizerRegex::CharClass cls;
        cls.ranges.push_back({n.cp, n.cp});
        return class_node(std::move(cls)).cls;
    }

    void emit(const Node &n) {
        auto &code = re_.code_;
        switch (n.kind) {
        case Node::Empty: break;
        case Node::Char: add({Op::Char, false, n.cp}); break;
        case Node::Class: add({Op::Class, false, 0, n.cls}); break;
        case Node::Seq:
            for (const Node &k : n.kids)
                emit(k);
            break;
        case Node::Alt: {
            std::vector<size_t> jumps;
            for (size_t i = 0; i < n.kids.size(); ++i) {
                size_t split = 0;
                if (i + 1 < n.kids.size()) split = add({Op::Split});
                if (i + 1 < n.kids.size()) code[split].a = here();
                emit(n.kids[i]);
                if (i + 1 < n.kids.size()) {
                    jumps.push_back(add({Op::Jump}));
                    code[split].b = here();
                }
            }
            for (size_t j : jumps)
                code[j].a = here();
            break;
        }
        case Node::Repeat: emit_repeat(n); break;
        case Node::Look: {
            size_t look = add({Op::Look, n.negative});
            code[look].a = here();
            emit(n.kids[0]);
            add({Op::Match});
            code[look].b = here();
            break;
        }
        }
    }

    void emit_repeat(const Node &n) {
        auto &code = re_.code_;
        const Node &body = n.kids[0];
        if (n.greedy && (body.kind == Node::Char || body.kind == Node::Class)) {
            add({Op::Repeat, true, 0, single_char_class(body), n.min, n.max});
            return;
        }
        for (int i = 0; i < n.min; ++i)
            emit(body);
        if (n.max == -1) {
            if (nullable(body)) error("repeat of a sub-pattern that can match empty");
            int32_t loop = here();
            size_t split = add({Op::Split});
            int32_t body_start = here();
            emit(body);
            add({Op::Jump, false, 0, loop});
            code[split].a = n.greedy ? body_start : here();
            code[split].b = n.greedy ? here() : body_start;
            return;
        }
        std::vector<size_t> splits;
        for (int i = n.min; i < n.max; ++i) {
            splits.push_back(add({Op::Split}));
            int32_t body_start = here();
            emit(body);
            code[splits.back()].a = body_start; // patched below for lazy
        }
        for (size_t s : splits) {
            if (n.greedy) {
                code[s].b = here();
            } else {
                code[s].b = code[s].a;
                code[s].a = here();
            }
        }
    }

    PretokenizerRegex &re_;
    std::vector<uint32_t> cps_;
    size_t pos_ = 0;
};

PretokenizerRegex::PretokenizerRegex(std::string_view pattern, const std::string &field)
    : field_(field) {
    RegexCompiler(*this, pattern).compile();
}

void PretokenizerRegex::first_chars(int32_t pc, int &budget, uint64_t set[2]) const {
    const Inst &in = code_[static_cast<size_t>(pc)];
    if (--budget < 0 || in.op == Op::Look || in.op == Op::Match) {
        set[0] = set[1] = ~uint64_t{0};
        return;
    }
    switch (in.op) {
    case Op::Char:
        if (in.cp < 128) set[in.cp >> 6] |= uint64_t{1} << (in.cp & 63);
        break;
    case Op::Class:
    case Op::Repeat: {
        const CharClass &c = classes_[static_cast<size_t>(in.a)];
        set[0] |= c.ascii[0];
        set[1] |= c.ascii[1];
        if (in.op == Op::Repeat && in.b == 0) first_chars(pc + 1, budget, set);
        break;
    }
    case Op::Split:
        first_chars(in.a, budget, set);
        first_chars(in.b, budget, set);
        break;
    case Op::Jump: first_chars(in.a, budget, set); break;
    default: break;
    }
}

long PretokenizerRegex::run(std::string_view text, int32_t pc, size_t pos,
                            std::vector<Frame> &stack, uint64_t &budget) const {
    const char *base = text.data(), *end = base + text.size();
    const size_t floor = stack.size();
    for (;;) {
        if (--budget == 0)
            fail(LLM_ERR_UNSUPPORTED, field_,
                 ": the pre-tokenizer regex backtracks too much on this text");
        const Inst &in = code_[static_cast<size_t>(pc)];
        bool ok = true;
        switch (in.op) {
        case Op::Char:
        case Op::Class: {
            if (pos >= text.size()) {
                ok = false;
                break;
            }
            Utf8Char c = utf8_decode(base + pos, end);
            ok = in.op == Op::Char ? c.cp == in.cp
                                   : classes_[static_cast<size_t>(in.a)].contains(c.cp);
            if (ok) pos += c.len, ++pc;
            break;
        }
        case Op::Repeat: {
            const CharClass &cls = classes_[static_cast<size_t>(in.a)];
            int count = 0;
            size_t min_pos = pos;
            while ((in.c < 0 || count < in.c) && pos < text.size()) {
                Utf8Char c = utf8_decode(base + pos, end);
                if (!cls.contains(c.cp)) break;
                pos += c.len;
                if (++count == in.b) min_pos = pos;
            }
            if (count < in.b) {
                ok = false;
                break;
            }
            if (count > in.b) stack.push_back({pc + 1, pos, min_pos, true});
            ++pc;
            break;
        }
        case Op::Split: {
            if (pos < text.size() && static_cast<unsigned char>(base[pos]) < 0x80) {
                const unsigned c = static_cast<unsigned char>(base[pos]);
                const SplitFilter &f = split_filter_[static_cast<size_t>(pc)];
                const bool a = (f.a[c >> 6] >> (c & 63)) & 1, b = (f.b[c >> 6] >> (c & 63)) & 1;
                if (!a || !b) {
                    if (a)
                        pc = in.a;
                    else if (b)
                        pc = in.b;
                    else
                        ok = false;
                    break;
                }
            }
            stack.push_back({in.b, pos, 0, false});
            pc = in.a;
            break;
        }
        case Op::Jump: pc = in.a; break;
        case Op::Look: {
            bool matched = run(text, in.a, pos, stack, budget) >= 0;
            if (matched == in.flag)
                ok = false;
            else
                pc = in.b;
            break;
        }
        case Op::Match: stack.resize(floor); return static_cast<long>(pos);
        }
        if (ok) continue;
        if (stack.size() == floor) return -1;
        Frame &f = stack.back();
        pc = f.pc;
        if (f.back_off) {
            pos = static_cast<size_t>(utf8_previous(base + f.min_pos, base + f.pos) - base);
            if (pos > f.min_pos)
                f.pos = pos;
            else
                stack.pop_back();
        } else {
            pos = f.pos;
            stack.pop_back();
        }
    }
}

bool PretokenizerRegex::Matches::next(size_t &start, size_t &end) {
    const char *base = text_.data();
    while (pos_ < text_.size()) {
        uint64_t budget = step_budget(text_.size() - pos_);
        long m = re_.run(text_, 0, pos_, stack_, budget);
        if (m > static_cast<long>(pos_)) {
            start = pos_;
            end = pos_ = static_cast<size_t>(m);
            return true;
        }
        pos_ += utf8_decode(base + pos_, base + text_.size()).len;
    }
    return false;
}

void PretokenizerRegex::find_all(std::string_view text,
                                 std::vector<std::pair<size_t, size_t>> &matches) const {
    Matches it(*this, text);
    for (size_t a, b; it.next(a, b);)
        matches.emplace_back(a, b);
}

} // namespace llm
