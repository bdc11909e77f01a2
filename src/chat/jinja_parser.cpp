#include "chat/jinja_parser.h"

#include <cerrno>
#include <cstdlib>
#include <initializer_list>

#include "chat/jinja_error.h"

namespace llm::jinja {

namespace {

// Deep nesting ((((...)))) would otherwise exhaust the stack.
constexpr int kMaxDepth = 200;

class Parser {
  public:
    explicit Parser(const std::vector<Token> &t) : t_(t) {}

    std::vector<NodePtr> program() {
        std::vector<NodePtr> out;
        while (pos_ < t_.size())
            out.push_back(any());
        return out;
    }

  private:
    const std::vector<Token> &t_;
    size_t pos_ = 0;
    int depth_ = 0;

    struct Guard {
        Parser &p;
        explicit Guard(Parser &x) : p(x) {
            if (++p.depth_ > kMaxDepth) p.error("template nested too deeply");
        }
        ~Guard() { --p.depth_; }
    };

    int line() const {
        if (t_.empty()) return 1;
        return pos_ < t_.size() ? t_[pos_].line : t_.back().line;
    }
    template <typename... P> [[noreturn]] void error(const P &...p) const { fail_at(line(), p...); }

    bool is(Tok type, size_t ahead = 0) const {
        return pos_ + ahead < t_.size() && t_[pos_ + ahead].type == type;
    }
    bool is_name(const char *name, size_t ahead = 0) const {
        return is(Tok::Identifier, ahead) && t_[pos_ + ahead].value == name;
    }
    bool is_statement(std::initializer_list<const char *> names) const {
        if (!is(Tok::OpenStatement) || !is(Tok::Identifier, 1)) return false;
        for (const char *n : names)
            if (t_[pos_ + 1].value == n) return true;
        return false;
    }
    const Token &expect(Tok type, const char *what) {
        if (!is(type)) {
            if (pos_ >= t_.size()) error("expected ", what, " but the template ended");
            error("expected ", what);
        }
        return t_[pos_++];
    }
    void expect_name(const char *name) {
        if (!is_name(name)) error("expected '", name, "'");
        ++pos_;
    }
    NodePtr node(Node kind, int ln) {
        auto n = std::make_unique<AstNode>();
        n->kind = kind;
        n->line = ln;
        return n;
    }

    // Statements until one of `ends` ({% end... %}); the template must not
    // end first.
    std::vector<NodePtr> block(std::initializer_list<const char *> ends, const char *opener) {
        std::vector<NodePtr> out;
        while (!is_statement(ends)) {
            if (pos_ >= t_.size()) error("unclosed {% ", opener, " %}");
            out.push_back(any());
        }
        return out;
    }

    NodePtr any() {
        Guard g(*this);
        const Token &tok = t_[pos_];
        switch (tok.type) {
        case Tok::Comment: {
            ++pos_;
            auto n = node(Node::Text, tok.line);
            return n;
        }
        case Tok::Text: {
            auto n = node(Node::Text, tok.line);
            n->str = tok.value;
            ++pos_;
            return n;
        }
        case Tok::OpenStatement: return statement();
        case Tok::OpenExpression: {
            ++pos_;
            auto n = node(Node::Output, tok.line);
            n->a = expression();
            expect(Tok::CloseExpression, "'}}'");
            return n;
        }
        default: error("unexpected '", tok.value, "'");
        }
    }

    NodePtr statement() {
        const int ln = line();
        expect(Tok::OpenStatement, "'{%'");
        if (!is(Tok::Identifier)) error("expected a statement name after '{%'");
        const std::string name = t_[pos_++].value;
        if (name == "set") return set_statement(ln);
        if (name == "if") {
            auto n = if_statement(ln);
            expect(Tok::OpenStatement, "'{%'");
            expect_name("endif");
            expect(Tok::CloseStatement, "'%}'");
            return n;
        }
        if (name == "for") return for_statement(ln);
        if (name == "macro") {
            auto n = node(Node::Macro, ln);
            if (!is(Tok::Identifier)) error("expected a macro name");
            n->str = t_[pos_++].value;
            n->args = arguments(true);
            expect(Tok::CloseStatement, "'%}'");
            n->body = block({"endmacro"}, "macro");
            pos_ += 2;
            expect(Tok::CloseStatement, "'%}'");
            return n;
        }
        if (name == "call") {
            auto n = node(Node::CallBlock, ln);
            if (is(Tok::OpenParen)) n->args = arguments(true);
            auto callee = primary();
            if (callee->kind != Node::Name) error("expected a macro name after 'call'");
            auto call = node(Node::Call, ln);
            call->a = std::move(callee);
            call->args = arguments(false);
            n->a = std::move(call);
            expect(Tok::CloseStatement, "'%}'");
            n->body = block({"endcall"}, "call");
            pos_ += 2;
            expect(Tok::CloseStatement, "'%}'");
            return n;
        }
        if (name == "filter") {
            auto n = node(Node::FilterBlock, ln);
            n->a = filter_of(nullptr);
            expect(Tok::CloseStatement, "'%}'");
            n->body = block({"endfilter"}, "filter");
            pos_ += 2;
            expect(Tok::CloseStatement, "'%}'");
            return n;
        }
        if (name == "break" || name == "continue") {
            expect(Tok::CloseStatement, "'%}'");
            return node(name == "break" ? Node::Break : Node::Continue, ln);
        }
        error("unknown statement '", name, "'");
    }

    NodePtr set_statement(int ln) {
        auto n = node(Node::Set, ln);
        n->a = sequence(true);
        if (is(Tok::Equals)) {
            ++pos_;
            n->b = sequence(false);
        } else {
            expect(Tok::CloseStatement, "'=' or '%}'");
            n->body = block({"endset"}, "set");
            pos_ += 2;
        }
        expect(Tok::CloseStatement, "'%}'");
        const Node k = n->a->kind;
        if (k != Node::Name && k != Node::TupleLit &&
            !(k == Node::Attr && n->a->a->kind == Node::Name))
            error("cannot assign to this expression");
        return n;
    }

    NodePtr if_statement(int ln) {
        auto n = node(Node::If, ln);
        n->a = expression();
        expect(Tok::CloseStatement, "'%}'");
        n->body = block({"elif", "else", "endif"}, "if");
        if (is_statement({"elif"})) {
            const int eln = line();
            pos_ += 2;
            n->alt.push_back(if_statement(eln));
        } else if (is_statement({"else"})) {
            pos_ += 2;
            expect(Tok::CloseStatement, "'%}'");
            n->alt = block({"endif"}, "if");
        }
        return n;
    }

    NodePtr for_statement(int ln) {
        auto n = node(Node::For, ln);
        n->a = sequence(true);
        if (n->a->kind != Node::Name && n->a->kind != Node::TupleLit)
            error("expected a loop variable after 'for'");
        for (const auto &item : n->a->items)
            if (item->kind != Node::Name) error("expected names to unpack in 'for'");
        expect_name("in");
        n->b = or_expr();
        if (is_name("if")) {
            ++pos_;
            n->c = or_expr();
        }
        if (is_name("recursive")) error("recursive loops are not supported");
        expect(Tok::CloseStatement, "'%}'");
        n->body = block({"endfor", "else"}, "for");
        if (is_statement({"else"})) {
            pos_ += 2;
            expect(Tok::CloseStatement, "'%}'");
            n->alt = block({"endfor"}, "for");
        }
        pos_ += 2;
        expect(Tok::CloseStatement, "'%}'");
        return n;
    }

    // a, b, c (a tuple) or a single expression; targets are primaries.
    NodePtr sequence(bool target) {
        const int ln = line();
        auto first = target ? postfix(primary()) : expression();
        if (!is(Tok::Comma)) return first;
        auto t = node(Node::TupleLit, ln);
        t->items.push_back(std::move(first));
        while (is(Tok::Comma)) {
            ++pos_;
            if (target ? !is(Tok::Identifier) : (is(Tok::CloseStatement) || is(Tok::CloseParen)))
                break;
            t->items.push_back(target ? postfix(primary()) : expression());
        }
        return t;
    }

    std::vector<Arg> arguments(bool parameters) {
        expect(Tok::OpenParen, "'('");
        std::vector<Arg> out;
        bool keyword = false;
        while (!is(Tok::CloseParen)) {
            if (pos_ >= t_.size()) error("unclosed '('");
            Arg arg;
            if (!parameters && is(Tok::Power)) {
                ++pos_;
                arg.spread = 2;
                arg.value = expression();
            } else if (!parameters && is(Tok::Multiplicative) && t_[pos_].value == "*") {
                ++pos_;
                arg.spread = 1;
                arg.value = expression();
            } else if (is(Tok::Identifier) && is(Tok::Equals, 1)) {
                arg.name = t_[pos_].value;
                pos_ += 2;
                arg.value = expression();
                keyword = true;
            } else {
                auto e = expression();
                if (parameters) {
                    if (e->kind != Node::Name) error("expected a parameter name");
                    if (keyword) error("a parameter without a default follows one with a default");
                    arg.name = e->str;
                } else {
                    if (keyword) error("a positional argument follows a keyword argument");
                    arg.value = std::move(e);
                }
            }
            out.push_back(std::move(arg));
            if (!is(Tok::Comma)) break;
            ++pos_;
        }
        expect(Tok::CloseParen, "')'");
        return out;
    }

    NodePtr expression() {
        Guard g(*this);
        const int ln = line();
        auto a = or_expr();
        if (!is_name("if")) return a;
        ++pos_;
        auto n = node(Node::Ternary, ln);
        n->b = or_expr();
        n->a = std::move(a);
        if (is_name("else")) {
            ++pos_;
            n->c = expression();
        }
        return n;
    }

    NodePtr binary(const std::string &op, NodePtr l, NodePtr r, int ln) {
        auto n = node(Node::Binary, ln);
        n->str = op;
        n->a = std::move(l);
        n->b = std::move(r);
        return n;
    }

    NodePtr or_expr() {
        auto l = and_expr();
        while (is_name("or")) {
            const int ln = line();
            ++pos_;
            l = binary("or", std::move(l), and_expr(), ln);
        }
        return l;
    }
    NodePtr and_expr() {
        auto l = not_expr();
        while (is_name("and")) {
            const int ln = line();
            ++pos_;
            l = binary("and", std::move(l), not_expr(), ln);
        }
        return l;
    }
    NodePtr not_expr() {
        Guard g(*this);
        if (is_name("not")) {
            const int ln = line();
            ++pos_;
            auto n = node(Node::Unary, ln);
            n->str = "not";
            n->a = not_expr();
            return n;
        }
        return comparison();
    }
    NodePtr comparison() {
        auto l = additive();
        while (true) {
            const int ln = line();
            std::string op;
            if (is_name("not") && is_name("in", 1)) {
                op = "not in";
                pos_ += 2;
            } else if (is_name("in")) {
                op = "in";
                ++pos_;
            } else if (is(Tok::Comparison)) {
                op = t_[pos_++].value;
            } else {
                break;
            }
            l = binary(op, std::move(l), additive(), ln);
        }
        return l;
    }
    NodePtr additive() {
        auto l = multiplicative();
        while (is(Tok::Additive)) {
            const int ln = line();
            const std::string op = t_[pos_++].value;
            l = binary(op, std::move(l), multiplicative(), ln);
        }
        return l;
    }
    NodePtr multiplicative() {
        auto l = power();
        while (is(Tok::Multiplicative)) {
            const int ln = line();
            const std::string op = t_[pos_++].value;
            l = binary(op, std::move(l), power(), ln);
        }
        return l;
    }
    NodePtr power() {
        auto l = test();
        while (is(Tok::Power)) {
            const int ln = line();
            ++pos_;
            l = binary("**", std::move(l), test(), ln);
        }
        return l;
    }
    NodePtr test() {
        auto operand = filter();
        while (is_name("is")) {
            const int ln = line();
            ++pos_;
            auto n = node(Node::Test, ln);
            if (is_name("not")) {
                n->negate = true;
                ++pos_;
            }
            if (!is(Tok::Identifier)) error("expected a test name after 'is'");
            n->str = t_[pos_++].value;
            if (is(Tok::OpenParen)) {
                n->args = arguments(false);
            } else if ((is(Tok::Number) || is(Tok::String) || is(Tok::OpenBracket) ||
                        is(Tok::OpenBrace) ||
                        (is(Tok::Identifier) && !is_name("else") && !is_name("or") &&
                         !is_name("and") && !is_name("if") && !is_name("is") && !is_name("not") &&
                         !is_name("in")))) {
                Arg arg;
                arg.value = postfix(primary());
                n->args.push_back(std::move(arg));
            }
            n->a = std::move(operand);
            operand = std::move(n);
        }
        return operand;
    }
    NodePtr filter_of(NodePtr operand) {
        const int ln = line();
        if (!is(Tok::Identifier)) error("expected a filter name");
        auto n = node(Node::Filter, ln);
        n->str = t_[pos_++].value;
        while (is(Tok::Dot) && is(Tok::Identifier, 1)) { // dotted filter names
            n->str += "." + t_[pos_ + 1].value;
            pos_ += 2;
        }
        if (is(Tok::OpenParen)) n->args = arguments(false);
        n->a = std::move(operand);
        return n;
    }
    NodePtr filter() {
        auto operand = unary();
        while (is(Tok::Pipe)) {
            ++pos_;
            operand = filter_of(std::move(operand));
        }
        return operand;
    }
    NodePtr unary() {
        Guard g(*this);
        if ((is(Tok::Unary) || is(Tok::Additive)) &&
            (t_[pos_].value == "-" || t_[pos_].value == "+")) {
            const int ln = line();
            auto n = node(Node::Unary, ln);
            n->str = t_[pos_++].value;
            n->a = unary();
            return n;
        }
        return postfix(primary());
    }

    NodePtr postfix(NodePtr e) {
        while (true) {
            const int ln = line();
            if (is(Tok::Dot)) {
                ++pos_;
                if (is(Tok::Identifier)) {
                    auto n = node(Node::Attr, ln);
                    n->str = t_[pos_++].value;
                    n->a = std::move(e);
                    e = std::move(n);
                } else if (is(Tok::Number) && t_[pos_].value.find('.') == std::string::npos) {
                    auto n = node(Node::Index, ln);
                    n->b = node(Node::Literal, ln);
                    n->b->value = number(t_[pos_++].value);
                    n->a = std::move(e);
                    e = std::move(n);
                } else {
                    error("expected a name after '.'");
                }
            } else if (is(Tok::OpenBracket)) {
                ++pos_;
                e = subscript(std::move(e), ln);
            } else if (is(Tok::OpenParen)) {
                auto n = node(Node::Call, ln);
                n->args = arguments(false);
                n->a = std::move(e);
                e = std::move(n);
            } else {
                return e;
            }
        }
    }

    NodePtr subscript(NodePtr obj, int ln) {
        NodePtr parts[3];
        int count = 0;
        bool slice = false;
        while (!is(Tok::CloseBracket)) {
            if (pos_ >= t_.size()) error("unclosed '['");
            if (count >= 3) error("a slice has at most three parts");
            if (is(Tok::Colon)) {
                ++pos_;
                ++count;
                slice = true;
            } else {
                parts[count] = expression();
                if (is(Tok::Colon)) {
                    ++pos_;
                    slice = true;
                    ++count;
                } else if (!is(Tok::CloseBracket)) {
                    error("expected ']'");
                } else {
                    ++count;
                }
            }
        }
        ++pos_;
        if (count == 0 && !slice) error("empty subscript");
        if (!slice) {
            auto n = node(Node::Index, ln);
            n->a = std::move(obj);
            n->b = std::move(parts[0]);
            return n;
        }
        auto n = node(Node::Slice, ln);
        n->a = std::move(obj);
        n->b = std::move(parts[0]);
        n->c = std::move(parts[1]);
        n->d = std::move(parts[2]);
        return n;
    }

    Value number(const std::string &text) {
        if (text.find('.') != std::string::npos)
            return Value::number(std::strtod(text.c_str(), nullptr));
        errno = 0;
        const long long v = std::strtoll(text.c_str(), nullptr, 10);
        if (errno == ERANGE) return Value::number(std::strtod(text.c_str(), nullptr));
        return Value::integer(v);
    }

    NodePtr primary() {
        Guard g(*this);
        if (pos_ >= t_.size()) error("expected an expression but the template ended");
        const Token &tok = t_[pos_];
        const int ln = tok.line;
        switch (tok.type) {
        case Tok::Number: {
            ++pos_;
            auto n = node(Node::Literal, ln);
            n->value = number(tok.value);
            return n;
        }
        case Tok::String: {
            auto n = node(Node::Literal, ln);
            std::string s;
            while (is(Tok::String))
                s += t_[pos_++].value;
            n->value = Value::string(std::move(s));
            return n;
        }
        case Tok::Identifier: {
            ++pos_;
            const std::string &v = tok.value;
            if (v == "true" || v == "True" || v == "false" || v == "False") {
                auto n = node(Node::Literal, ln);
                n->value = Value::boolean(v[0] == 't' || v[0] == 'T');
                return n;
            }
            if (v == "none" || v == "None") {
                auto n = node(Node::Literal, ln);
                n->value = Value::none();
                return n;
            }
            auto n = node(Node::Name, ln);
            n->str = v;
            return n;
        }
        case Tok::OpenParen: {
            ++pos_;
            if (is(Tok::CloseParen)) {
                ++pos_;
                return node(Node::TupleLit, ln);
            }
            auto e = sequence(false);
            expect(Tok::CloseParen, "')'");
            return e;
        }
        case Tok::OpenBracket: {
            ++pos_;
            auto n = node(Node::ListLit, ln);
            while (!is(Tok::CloseBracket)) {
                if (pos_ >= t_.size()) error("unclosed '['");
                n->items.push_back(expression());
                if (!is(Tok::Comma)) break;
                ++pos_;
            }
            expect(Tok::CloseBracket, "']'");
            return n;
        }
        case Tok::OpenBrace: {
            ++pos_;
            auto n = node(Node::DictLit, ln);
            while (!is(Tok::CloseBrace)) {
                if (pos_ >= t_.size()) error("unclosed '{'");
                n->items.push_back(expression());
                expect(Tok::Colon, "':' in a dict literal");
                n->items.push_back(expression());
                if (!is(Tok::Comma)) break;
                ++pos_;
            }
            expect(Tok::CloseBrace, "'}'");
            return n;
        }
        default: error("unexpected '", tok.value, "'");
        }
    }
};

} // namespace

std::vector<NodePtr> parse(const std::vector<Token> &tokens) {
    return Parser(tokens).program();
}

} // namespace llm::jinja
