#include "grammar/gbnf_parser.h"

#include <algorithm>
#include <unordered_map>

#include "common/error.h"

namespace llm::grammar {

bool Grammar::chars_contain(const Elem &e, uint32_t cp) const {
    const CodeRange *r = ranges.data() + e.a, *end = r + e.b;
    // First range whose hi >= cp.
    r = std::lower_bound(r, end, cp, [](const CodeRange &x, uint32_t c) { return x.hi < c; });
    return r != end && r->lo <= cp;
}

namespace {

constexpr uint32_t kMaxCodePoint = 0x10FFFF;

struct PElem {
    bool is_rule = false;
    uint32_t rule = 0;
    std::vector<CodeRange> chars;
};
using Seq = std::vector<PElem>;

struct PRule {
    std::string name;
    std::vector<Seq> alts;
    bool defined = false;
    size_t pos = 0; // where defined (helpers: where the construct is)
    size_t ref_pos = 0;
    bool referenced = false;
};

bool name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

// Sorted, merged ranges; negated ones complemented over all code points.
std::vector<CodeRange> normalize(std::vector<CodeRange> r, bool negate) {
    std::sort(r.begin(), r.end(), [](const CodeRange &a, const CodeRange &b) {
        return a.lo != b.lo ? a.lo < b.lo : a.hi < b.hi;
    });
    std::vector<CodeRange> out;
    for (const CodeRange &x : r) {
        if (!out.empty() && x.lo <= out.back().hi + 1)
            out.back().hi = std::max(out.back().hi, x.hi);
        else
            out.push_back(x);
    }
    if (!negate) return out;
    std::vector<CodeRange> neg;
    uint32_t next = 0;
    for (const CodeRange &x : out) {
        if (x.lo > next) neg.push_back({next, x.lo - 1});
        next = x.hi + 1;
    }
    if (next <= kMaxCodePoint) neg.push_back({next, kMaxCodePoint});
    return neg;
}

class Parser {
  public:
    explicit Parser(std::string_view text) : s_(text) {}

    std::shared_ptr<const Grammar> run(std::string_view root_name) {
        if (s_.size() > kMaxGrammarBytes)
            fail(LLM_ERR_GRAMMAR, "grammar is ", s_.size(), " bytes; the limit is ",
                 kMaxGrammarBytes);
        skip_space(true);
        while (i_ < s_.size()) {
            parse_rule();
            skip_space(true);
        }
        size_t n_defined = 0;
        for (const PRule &r : rules_)
            n_defined += r.defined;
        if (n_defined == 0) fail(LLM_ERR_GRAMMAR, "empty grammar: no rule is defined");
        for (const PRule &r : rules_)
            if (!r.defined) error_at(r.ref_pos, "undefined rule '" + r.name + "'");
        auto root = names_.find(std::string(root_name));
        if (root == names_.end() || !rules_[root->second].defined)
            fail(LLM_ERR_GRAMMAR, "grammar has no root rule '", root_name, "'");
        check_left_recursion();
        return compile(root->second);
    }

  private:
    [[noreturn]] void error_at(size_t pos, const std::string &what) const {
        size_t line = 1, col = 1;
        for (size_t k = 0; k < pos && k < s_.size(); ++k) {
            if (s_[k] == '\n') {
                ++line;
                col = 1;
            } else if ((static_cast<unsigned char>(s_[k]) & 0xC0) != 0x80) {
                ++col;
            }
        }
        fail(LLM_ERR_GRAMMAR, "grammar ", line, ":", col, ": ", what);
    }
    [[noreturn]] void expected(const std::string &what) const {
        std::string got = i_ >= s_.size() ? "end of input" : "'" + std::string(1, s_[i_]) + "'";
        if (i_ < s_.size() && s_[i_] == '\n') got = "end of line";
        error_at(i_, "expected " + what + ", found " + got);
    }

    bool at_end() const { return i_ >= s_.size(); }
    char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }

    void skip_space(bool newline_ok) {
        while (i_ < s_.size()) {
            char c = s_[i_];
            if (c == ' ' || c == '\t' || c == '\r') {
                ++i_;
            } else if (c == '#') {
                while (i_ < s_.size() && s_[i_] != '\n')
                    ++i_;
            } else if (c == '\n' && newline_ok) {
                ++i_;
            } else {
                break;
            }
        }
    }

    std::string parse_name() {
        size_t start = i_;
        while (i_ < s_.size() && name_char(s_[i_]))
            ++i_;
        if (i_ == start) expected("a rule name");
        return std::string(s_.substr(start, i_ - start));
    }

    uint32_t rule_id(const std::string &name) {
        auto it = names_.find(name);
        if (it != names_.end()) return it->second;
        return new_rule(name, i_);
    }

    uint32_t new_rule(const std::string &name, size_t pos) {
        if (rules_.size() >= kMaxRules)
            error_at(pos, "too many rules (the limit is " + std::to_string(kMaxRules) + ")");
        const auto id = static_cast<uint32_t>(rules_.size());
        rules_.push_back(PRule{});
        rules_.back().name = name;
        rules_.back().pos = pos;
        names_.emplace(name, id);
        return id;
    }

    uint32_t helper_rule(uint32_t parent, size_t pos) {
        std::string name;
        do {
            name = rules_[parent].name + "_" + std::to_string(++helper_count_);
        } while (names_.count(name));
        uint32_t id = new_rule(name, pos);
        rules_[id].defined = true;
        return id;
    }

    void count_elems(size_t n) {
        n_elems_ += n;
        if (n_elems_ > kMaxElems)
            error_at(i_, "grammar too large (more than " + std::to_string(kMaxElems) +
                             " elements after expanding repetitions)");
    }

    void parse_rule() {
        const size_t start = i_;
        const std::string name = parse_name();
        uint32_t id = rule_id(name);
        if (rules_[id].defined) error_at(start, "rule '" + name + "' is defined twice");
        rules_[id].defined = true;
        rules_[id].pos = start;
        skip_space(false);
        if (s_.substr(i_, 3) != "::=") expected("'::='");
        i_ += 3;
        skip_space(true);
        rules_[id].alts = parse_alternates(id, false, 0);
        skip_space(false);
        if (!at_end() && peek() != '\n') expected("an element, '|' or end of line");
    }

    std::vector<Seq> parse_alternates(uint32_t rule, bool nested, int depth) {
        std::vector<Seq> alts;
        alts.push_back(parse_sequence(rule, nested, depth));
        while (peek() == '|') {
            ++i_;
            skip_space(true);
            alts.push_back(parse_sequence(rule, nested, depth));
        }
        return alts;
    }

    // A code point from a literal or class, escapes decoded.
    uint32_t parse_char() {
        if (at_end()) expected("a character");
        unsigned char c = static_cast<unsigned char>(s_[i_]);
        if (c == '\\') {
            ++i_;
            if (at_end()) expected("an escape character");
            char e = s_[i_++];
            switch (e) {
            case 'n': return '\n';
            case 't': return '\t';
            case 'r': return '\r';
            case '\\': return '\\';
            case '"': return '"';
            case '\'': return '\'';
            case '[': return '[';
            case ']': return ']';
            case '-': return '-';
            case '^': return '^';
            case '/': return '/';
            case 'x': return parse_hex(2);
            case 'u': return parse_hex(4);
            case 'U': return parse_hex(8);
            default: --i_; error_at(i_ - 1, "unknown escape '\\" + std::string(1, e) + "'");
            }
        }
        if (c < 0x80) {
            ++i_;
            return c;
        }
        int n = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : -1;
        if (n < 0 || c > 0xF4) error_at(i_, "invalid UTF-8 byte");
        uint32_t cp = c & (0x3Fu >> n);
        for (int k = 1; k <= n; ++k) {
            if (i_ + k >= s_.size() || (static_cast<unsigned char>(s_[i_ + k]) & 0xC0) != 0x80)
                error_at(i_, "invalid UTF-8 sequence");
            cp = cp << 6 | (static_cast<unsigned char>(s_[i_ + k]) & 0x3Fu);
        }
        static const uint32_t min_cp[] = {0, 0x80, 0x800, 0x10000};
        if (cp < min_cp[n] || cp > kMaxCodePoint || (cp >= 0xD800 && cp <= 0xDFFF))
            error_at(i_, "invalid UTF-8 sequence");
        i_ += static_cast<size_t>(n) + 1;
        return cp;
    }

    uint32_t parse_hex(int digits) {
        const size_t start = i_;
        uint32_t v = 0;
        for (int k = 0; k < digits; ++k) {
            char h = peek();
            uint32_t d;
            if (h >= '0' && h <= '9')
                d = static_cast<uint32_t>(h - '0');
            else if (h >= 'a' && h <= 'f')
                d = static_cast<uint32_t>(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F')
                d = static_cast<uint32_t>(h - 'A' + 10);
            else
                expected(std::to_string(digits) + " hex digits");
            v = v << 4 | d;
            ++i_;
        }
        if (v > kMaxCodePoint) error_at(start, "code point beyond U+10FFFF");
        return v;
    }

    uint32_t parse_count() {
        size_t start = i_;
        uint64_t v = 0;
        while (peek() >= '0' && peek() <= '9') {
            v = v * 10 + static_cast<uint64_t>(peek() - '0');
            if (v > kMaxRepetition)
                error_at(start,
                         "repetition count above the limit " + std::to_string(kMaxRepetition));
            ++i_;
        }
        if (i_ == start) expected("a number");
        return static_cast<uint32_t>(v);
    }

    Seq parse_sequence(uint32_t rule, bool nested, int depth) {
        Seq seq;
        size_t last_start = SIZE_MAX; // where the last item's elements begin in seq
        size_t last_pos = 0;
        for (;;) {
            const size_t item_pos = i_;
            char c = peek();
            if (c == '"') {
                ++i_;
                last_start = seq.size();
                while (peek() != '"') {
                    if (at_end() || peek() == '\n') expected("'\"' closing the string");
                    PElem e;
                    uint32_t cp = parse_char();
                    e.chars.push_back({cp, cp});
                    seq.push_back(std::move(e));
                    count_elems(1);
                }
                ++i_;
            } else if (c == '[') {
                ++i_;
                bool negate = peek() == '^';
                if (negate) ++i_;
                std::vector<CodeRange> ranges;
                while (peek() != ']') {
                    if (at_end() || peek() == '\n') expected("']' closing the character class");
                    const size_t at = i_;
                    uint32_t lo = parse_char(), hi = lo;
                    if (peek() == '-' && i_ + 1 < s_.size() && s_[i_ + 1] != ']') {
                        ++i_;
                        hi = parse_char();
                        if (hi < lo) error_at(at, "character range is reversed");
                    }
                    ranges.push_back({lo, hi});
                }
                ++i_;
                if (ranges.empty() && !negate) error_at(item_pos, "empty character class");
                PElem e;
                e.chars = normalize(std::move(ranges), negate);
                if (e.chars.empty()) error_at(item_pos, "character class matches nothing");
                last_start = seq.size();
                seq.push_back(std::move(e));
                count_elems(1);
            } else if (c == '.') {
                ++i_;
                PElem e;
                e.chars.push_back({0, kMaxCodePoint});
                last_start = seq.size();
                seq.push_back(std::move(e));
                count_elems(1);
            } else if (name_char(c)) {
                const size_t at = i_;
                std::string name = parse_name();
                uint32_t id = rule_id(name);
                if (!rules_[id].referenced) {
                    rules_[id].referenced = true;
                    rules_[id].ref_pos = at;
                }
                PElem e;
                e.is_rule = true;
                e.rule = id;
                last_start = seq.size();
                seq.push_back(std::move(e));
                count_elems(1);
            } else if (c == '(') {
                if (depth + 1 > kMaxNesting)
                    error_at(i_, "groups nested deeper than " + std::to_string(kMaxNesting));
                ++i_;
                skip_space(true);
                uint32_t id = helper_rule(rule, item_pos);
                auto alts = parse_alternates(rule, true, depth + 1);
                rules_[id].alts = std::move(alts);
                if (peek() != ')') expected("')'");
                ++i_;
                PElem e;
                e.is_rule = true;
                e.rule = id;
                last_start = seq.size();
                seq.push_back(std::move(e));
                count_elems(1);
            } else if (c == '*' || c == '+' || c == '?' || c == '{') {
                if (last_start == SIZE_MAX)
                    error_at(i_, std::string("expected an item before '") + c + "'");
                ++i_;
                uint32_t lo = 0, hi = UINT32_MAX;
                if (c == '+') lo = 1;
                if (c == '?') hi = 1;
                if (c == '{') {
                    skip_space(nested);
                    lo = parse_count();
                    skip_space(nested);
                    if (peek() == ',') {
                        ++i_;
                        skip_space(nested);
                        if (peek() != '}') {
                            hi = parse_count();
                            if (hi < lo) error_at(item_pos, "repetition {m,n} has n < m");
                        }
                    } else {
                        hi = lo;
                    }
                    skip_space(nested);
                    if (peek() != '}') expected("'}'");
                    ++i_;
                }
                repeat(rule, seq, last_start, lo, hi, last_pos);
                last_start = SIZE_MAX; // "a**" is an error, as in llama.cpp
            } else {
                break;
            }
            if (c != '*' && c != '+' && c != '?' && c != '{') last_pos = item_pos;
            skip_space(nested);
        }
        return seq;
    }

    // Replaces seq[from..) (the last item) by lo..hi repetitions of it.
    void repeat(uint32_t rule, Seq &seq, size_t from, uint32_t lo, uint32_t hi, size_t pos) {
        PElem item;
        // One element repeats as itself, unless it is a large class (copies
        // of its ranges would add up).
        if (seq.size() - from == 1 && (seq[from].is_rule || seq[from].chars.size() <= 4)) {
            item = std::move(seq[from]);
        } else {
            uint32_t id = helper_rule(rule, pos);
            rules_[id].alts.push_back(Seq(std::make_move_iterator(seq.begin() + long(from)),
                                          std::make_move_iterator(seq.end())));
            item.is_rule = true;
            item.rule = id;
        }
        seq.resize(from);
        count_elems(lo);
        for (uint32_t k = 0; k < lo; ++k)
            seq.push_back(item);
        if (hi == lo) return;
        if (hi == UINT32_MAX) {
            // R ::= item R | (nothing)
            uint32_t id = helper_rule(rule, pos);
            PElem self;
            self.is_rule = true;
            self.rule = id;
            rules_[id].alts.push_back(Seq{item, self});
            rules_[id].alts.push_back(Seq{});
            count_elems(3);
            seq.push_back(self);
            repeat_rules_.push_back(id);
            return;
        }
        // R1 ::= item | (nothing);  Rk ::= item R(k-1) | (nothing)
        PElem prev;
        count_elems(3 * size_t(hi - lo));
        for (uint32_t k = 0; k < hi - lo; ++k) {
            uint32_t id = helper_rule(rule, pos);
            Seq a{item};
            if (k > 0) a.push_back(prev);
            rules_[id].alts.push_back(std::move(a));
            rules_[id].alts.push_back(Seq{});
            prev.is_rule = true;
            prev.rule = id;
            repeat_rules_.push_back(id);
        }
        seq.push_back(prev);
    }

    // A rule reaching itself before consuming input would make the matcher
    // expand forever: refused, naming the cycle.
    void check_left_recursion() {
        const size_t n = rules_.size();
        std::vector<char> nullable(n, 0);
        for (bool changed = true; changed;) {
            changed = false;
            for (size_t r = 0; r < n; ++r) {
                if (nullable[r]) continue;
                for (const Seq &a : rules_[r].alts) {
                    bool all = std::all_of(a.begin(), a.end(), [&](const PElem &e) {
                        return e.is_rule && nullable[e.rule];
                    });
                    if (all) {
                        nullable[r] = 1;
                        changed = true;
                        break;
                    }
                }
            }
        }
        std::vector<std::vector<uint32_t>> edges(n);
        for (size_t r = 0; r < n; ++r)
            for (const Seq &a : rules_[r].alts)
                for (const PElem &e : a) {
                    if (!e.is_rule) break;
                    edges[r].push_back(e.rule);
                    if (!nullable[e.rule]) break;
                }
        // Iterative DFS, colours: 0 new, 1 on the path, 2 done.
        std::vector<char> colour(n, 0);
        std::vector<std::pair<uint32_t, size_t>> path;
        for (uint32_t start = 0; start < n; ++start) {
            if (colour[start]) continue;
            path.push_back({start, 0});
            colour[start] = 1;
            while (!path.empty()) {
                auto &[r, k] = path.back();
                if (k == edges[r].size()) {
                    colour[r] = 2;
                    path.pop_back();
                    continue;
                }
                uint32_t next = edges[r][k++];
                if (colour[next] == 0) {
                    colour[next] = 1;
                    path.push_back({next, 0});
                } else if (colour[next] == 1) {
                    std::string cycle;
                    size_t first = 0;
                    while (path[first].first != next)
                        ++first;
                    for (size_t q = first; q < path.size(); ++q)
                        cycle += rules_[path[q].first].name + " -> ";
                    cycle += rules_[next].name;
                    const bool rep = std::find(repeat_rules_.begin(), repeat_rules_.end(), next) !=
                                     repeat_rules_.end();
                    error_at(rules_[next].pos,
                             rep ? "repetition of something that can match nothing (" + cycle + ")"
                                 : "left recursion: rule '" + rules_[next].name +
                                       "' can reach itself without consuming input (" + cycle +
                                       ")");
                }
            }
        }
    }

    std::shared_ptr<const Grammar> compile(uint32_t root) const {
        auto g = std::make_shared<Grammar>();
        g->root = root;
        g->rules.resize(rules_.size());
        for (size_t r = 0; r < rules_.size(); ++r) {
            g->rules[r].name = rules_[r].name;
            for (const Seq &a : rules_[r].alts) {
                g->rules[r].alts.push_back(static_cast<uint32_t>(g->elems.size()));
                for (const PElem &e : a) {
                    if (e.is_rule) {
                        g->elems.push_back({ElemKind::Rule, e.rule, 0});
                    } else {
                        g->elems.push_back({ElemKind::Chars,
                                            static_cast<uint32_t>(g->ranges.size()),
                                            static_cast<uint32_t>(e.chars.size())});
                        g->ranges.insert(g->ranges.end(), e.chars.begin(), e.chars.end());
                    }
                }
                g->elems.push_back({ElemKind::End, 0, 0});
            }
        }
        return g;
    }

    std::string_view s_;
    size_t i_ = 0;
    std::vector<PRule> rules_;
    std::unordered_map<std::string, uint32_t> names_;
    std::vector<uint32_t> repeat_rules_;
    size_t helper_count_ = 0;
    size_t n_elems_ = 0;
};

} // namespace

std::shared_ptr<const Grammar> parse_gbnf(std::string_view text, std::string_view root) {
    return Parser(text).run(root.empty() ? "root" : root);
}

} // namespace llm::grammar
