#include "chat/jinja_eval.h"

#include <cmath>
#include <cstdio>
#include <ctime>

namespace llm::jinja {

const Value *Scope::lookup(const std::string &name) const {
    for (const Scope *s = this; s; s = s->parent.get()) {
        auto it = s->vars.find(name);
        if (it != s->vars.end()) return &it->second;
    }
    return nullptr;
}

namespace {

enum class Flow { Normal, Break, Continue };

class Interp {
  public:
    explicit Interp(const JinjaLimits &limits) : budget_{limits, 0}, builtins_{budget_} {}

    ~Interp() {
        // Closures (macros, caller) hold their scopes: break the cycles.
        for (auto &w : scopes_)
            if (auto s = w.lock()) {
                std::unordered_map<std::string, Value> vars;
                vars.swap(s->vars);
                s->parent.reset();
            }
    }

    ScopePtr new_scope(ScopePtr parent) {
        auto s = std::make_shared<Scope>();
        s->parent = std::move(parent);
        scopes_.push_back(s);
        return s;
    }

    void add_globals(Scope &g) {
        g.vars["range"] = Value::callable([this](CallArgs &a) { return range(a); });
        g.vars["namespace"] = Value::callable([](CallArgs &a) {
            Value ns = Value::make_namespace();
            if (const Value *init = a.get(0, nullptr)) {
                if (init->type != Type::Dict && init->type != Type::Namespace)
                    fail_at(a.line, "namespace() takes a dict");
                for (const auto &kv : init->dict->items)
                    ns.dict->set(kv.first, kv.second);
            }
            for (const auto &kv : a.kw)
                ns.dict->set(kv.first, kv.second);
            return ns;
        });
        g.vars["dict"] = Value::callable([](CallArgs &a) {
            Value d = Value::make_dict();
            for (const auto &kv : a.kw)
                d.dict->set(kv.first, kv.second);
            return d;
        });
        g.vars["raise_exception"] = Value::callable([](CallArgs &a) -> Value {
            const Value *m = a.get(0, "message");
            fail_at(a.line, m ? to_str(*m) : std::string("raise_exception"));
        });
        g.vars["strftime_now"] = Value::callable([](CallArgs &a) {
            const Value *f = a.get(0, "format");
            if (!f || !f->is_string()) fail_at(a.line, "strftime_now needs a format string");
            const std::time_t now = std::time(nullptr);
            std::tm tm{};
#ifdef _WIN32
            tm = *std::localtime(&now); // thread-local storage in the Windows CRT
#else
            localtime_r(&now, &tm);
#endif
            char buf[512];
            const size_t n =
                f->s.size() < 200 ? std::strftime(buf, sizeof buf, f->s.c_str(), &tm) : 0;
            return Value::string(std::string(buf, n));
        });
    }

    std::string run(const std::vector<NodePtr> &program, const ScopePtr &globals) {
        std::string out;
        if (exec_block(program, globals, out) != Flow::Normal)
            fail_at(0, "{% break %} or {% continue %} outside a loop");
        return out;
    }

  private:
    Budget budget_;
    Builtins builtins_;
    int depth_ = 0;
    uint64_t produced_ = 0;
    std::vector<std::weak_ptr<Scope>> scopes_;

    struct Depth {
        Interp &in;
        Depth(Interp &i, int line) : in(i) {
            if (++in.depth_ > in.budget_.limits.max_depth)
                fail_at(line, "template recursion too deep");
        }
        ~Depth() { --in.depth_; }
    };

    // Bytes of text made while rendering, everywhere: bounds time and memory.
    void produce(size_t n, int line) {
        produced_ += n;
        if (produced_ > 8 * static_cast<uint64_t>(budget_.limits.max_output) + (64u << 20))
            fail_at(line, "template produces too much text");
    }
    void emit(std::string &out, const std::string &s, int line) {
        if (out.size() + s.size() > budget_.limits.max_output) fail_at(line, "output too large");
        produce(s.size(), line);
        out += s;
    }

    Value range(CallArgs &a) {
        int64_t start = 0, stop, step = 1;
        for (const Value &v : a.pos)
            if (!v.is_numeric() || v.type == Type::Float) fail_at(a.line, "range() needs integers");
        if (a.pos.size() == 1) {
            stop = a.pos[0].as_int();
        } else if (a.pos.size() == 2 || a.pos.size() == 3) {
            start = a.pos[0].as_int();
            stop = a.pos[1].as_int();
            if (a.pos.size() == 3) step = a.pos[2].as_int();
        } else {
            fail_at(a.line, "range() takes 1 to 3 arguments");
        }
        if (step == 0) fail_at(a.line, "range() step must not be zero");
        List out;
        const long double count = step > 0
                                      ? std::ceil((static_cast<long double>(stop) - start) / step)
                                      : std::ceil((static_cast<long double>(start) - stop) /
                                                  -static_cast<long double>(step));
        if (count > 0) {
            budget_.items(static_cast<size_t>(std::min<long double>(count, 1e18L)), a.line);
            budget_.step(a.line, static_cast<uint64_t>(count));
            for (int64_t k = 0; k < static_cast<int64_t>(count); ++k)
                out.push_back(Value::integer(start + k * step));
        }
        return Value::make_list(std::move(out));
    }

    // ---- statements ----------------------------------------------------

    Flow exec_block(const std::vector<NodePtr> &body, const ScopePtr &scope, std::string &out) {
        for (const NodePtr &n : body) {
            const Flow f = exec(*n, scope, out);
            if (f != Flow::Normal) return f;
        }
        return Flow::Normal;
    }

    std::string render_block(const std::vector<NodePtr> &body, const ScopePtr &scope, int line) {
        std::string out;
        if (exec_block(body, scope, out) != Flow::Normal)
            fail_at(line, "{% break %} or {% continue %} outside a loop");
        return out;
    }

    // Errors raised without a line (value printing, tojson) get the line of
    // the statement that ran into them.
    Flow exec(const AstNode &n, const ScopePtr &scope, std::string &out) {
        try {
            return exec_node(n, scope, out);
        } catch (const Error &e) {
            const std::string prefix = "chat template: ";
            const std::string msg = e.what();
            if (e.status() != kTemplateError || msg.compare(0, prefix.size(), prefix) != 0 ||
                msg.compare(prefix.size(), 5, "line ") == 0 || n.line <= 0)
                throw;
            fail_at(n.line, msg.substr(prefix.size()));
        }
    }

    Flow exec_node(const AstNode &n, const ScopePtr &scope, std::string &out) {
        Depth d(*this, n.line);
        budget_.step(n.line);
        switch (n.kind) {
        case Node::Text: emit(out, n.str, n.line); return Flow::Normal;
        case Node::Output: {
            const Value v = eval(*n.a, scope);
            if (v.is_string())
                emit(out, v.s, n.line);
            else
                emit(out, to_str(v), n.line);
            return Flow::Normal;
        }
        case Node::If: return exec_block(truthy(eval(*n.a, scope)) ? n.body : n.alt, scope, out);
        case Node::For: return exec_for(n, scope, out);
        case Node::Set: {
            Value v = n.b ? eval(*n.b, scope) : Value::string(render_block(n.body, scope, n.line));
            assign(*n.a, std::move(v), scope);
            return Flow::Normal;
        }
        case Node::Macro: scope->vars[n.str] = make_macro(n, scope); return Flow::Normal;
        case Node::CallBlock: {
            const AstNode *node = &n;
            ScopePtr defining = scope;
            Value caller = Value::callable([this, node, defining](CallArgs &a) {
                return call_macro_body(*node, node->args, node->body, defining, a);
            });
            const Value v = call(*n.a, scope, &caller);
            emit(out, v.is_string() ? v.s : to_str(v), n.line);
            return Flow::Normal;
        }
        case Node::FilterBlock: {
            const Value body = Value::string(render_block(n.body, scope, n.line));
            CallArgs args = eval_args(n.a->args, scope, n.line);
            const Value v = builtins_.filter(n.a->str, body, args, n.line);
            emit(out, v.is_string() ? v.s : to_str(v), n.line);
            return Flow::Normal;
        }
        case Node::Break: return Flow::Break;
        case Node::Continue: return Flow::Continue;
        default: {
            const Value v = eval(n, scope);
            emit(out, to_str(v), n.line);
            return Flow::Normal;
        }
        }
    }

    void bind(const AstNode &target, const Value &v, Scope &scope, int line) {
        if (target.kind == Node::Name) {
            scope.vars[target.str] = v;
            return;
        }
        if (!v.is_list()) fail_at(line, "cannot unpack a ", type_name(v));
        if (v.list->size() != target.items.size())
            fail_at(line, "expected ", target.items.size(), " values to unpack, got ",
                    v.list->size());
        for (size_t k = 0; k < target.items.size(); ++k) {
            if (target.items[k]->kind != Node::Name) fail_at(line, "can only unpack into names");
            scope.vars[target.items[k]->str] = (*v.list)[k];
        }
    }

    void assign(const AstNode &target, Value v, const ScopePtr &scope) {
        if (target.kind == Node::Attr) {
            const Value ns = eval(*target.a, scope);
            if (ns.type != Type::Namespace)
                fail_at(target.line, "cannot assign an attribute of a ", type_name(ns),
                        " (only of a namespace)");
            ns.dict->set(target.str, std::move(v));
            return;
        }
        bind(target, v, *scope, target.line);
    }

    List iterable(const Value &v, int line) {
        switch (v.type) {
        case Type::List: return *v.list;
        case Type::Dict: {
            List out;
            for (const auto &kv : v.dict->items)
                out.push_back(Value::string(kv.first));
            return out;
        }
        case Type::String: {
            budget_.items(v.s.size(), line);
            budget_.step(line, v.s.size());
            List out;
            for (uint32_t c : code_points(v.s)) {
                std::string ch;
                append_utf8(ch, c);
                out.push_back(Value::string(std::move(ch)));
            }
            return out;
        }
        case Type::Undefined: return {};
        default: fail_at(line, "'", type_name(v), "' object is not iterable");
        }
    }

    Flow exec_for(const AstNode &n, const ScopePtr &scope, std::string &out) {
        ScopePtr loop_scope = new_scope(scope);
        List items = iterable(eval(*n.b, loop_scope), n.line);
        if (n.c) {
            List kept;
            for (const Value &item : items) {
                budget_.step(n.line);
                ScopePtr test_scope = new_scope(loop_scope);
                bind(*n.a, item, *test_scope, n.line);
                if (truthy(eval(*n.c, test_scope))) kept.push_back(item);
            }
            items.swap(kept);
        }
        const size_t len = items.size();
        // One loop object per loop, its fields updated in place.
        Value loop = Value::make_dict();
        Dict &l = *loop.dict;
        for (const char *key : {"index", "index0", "revindex", "revindex0", "first", "last",
                                "length", "depth", "depth0", "previtem", "nextitem", "cycle"})
            l.set(key, Value());
        auto field = [&](size_t k) -> Value & { return l.items[k].second; };
        const auto nn = static_cast<int64_t>(len);
        field(6) = Value::integer(nn);
        field(7) = Value::integer(1);
        field(8) = Value::integer(0);
        auto index = std::make_shared<size_t>(0);
        field(11) = Value::callable([index](CallArgs &a) {
            if (a.pos.empty()) fail_at(a.line, "loop.cycle() needs arguments");
            return a.pos[*index % a.pos.size()];
        });
        loop_scope->vars["loop"] = loop;
        for (size_t i = 0; i < len; ++i) {
            budget_.step(n.line);
            const auto ii = static_cast<int64_t>(i);
            *index = i;
            field(0) = Value::integer(ii + 1);
            field(1) = Value::integer(ii);
            field(2) = Value::integer(nn - ii);
            field(3) = Value::integer(nn - ii - 1);
            field(4) = Value::boolean(i == 0);
            field(5) = Value::boolean(i + 1 == len);
            field(9) = i > 0 ? items[i - 1] : Value();
            field(10) = i + 1 < len ? items[i + 1] : Value();
            bind(*n.a, items[i], *loop_scope, n.line);
            const Flow f = exec_block(n.body, loop_scope, out);
            if (f == Flow::Break) break;
        }
        if (len == 0) {
            // (Jinja2 runs else only when nothing was iterated.)
            ScopePtr else_scope = new_scope(scope);
            return exec_block(n.alt, else_scope, out);
        }
        return Flow::Normal;
    }

    // ---- macros ----------------------------------------------------------

    Value make_macro(const AstNode &n, const ScopePtr &scope) {
        const AstNode *node = &n;
        ScopePtr defining = scope;
        return Value::callable([this, node, defining](CallArgs &a) {
            return call_macro_body(*node, node->args, node->body, defining, a);
        });
    }

    Value call_macro_body(const AstNode &n, const std::vector<Arg> &params,
                          const std::vector<NodePtr> &body, const ScopePtr &defining, CallArgs &a) {
        Depth d(*this, n.line);
        ScopePtr s = new_scope(defining);
        std::vector<bool> used_kw(a.kw.size(), false);
        for (size_t k = 0; k < params.size(); ++k) {
            const Arg &p = params[k];
            Value v;
            bool have = false;
            if (k < a.pos.size()) {
                v = a.pos[k];
                have = true;
            } else {
                for (size_t j = 0; j < a.kw.size(); ++j)
                    if (a.kw[j].first == p.name) {
                        v = a.kw[j].second;
                        used_kw[j] = have = true;
                        break;
                    }
            }
            if (!have && p.value) v = eval(*p.value, s);
            s->vars[p.name] = v;
        }
        List varargs;
        for (size_t k = params.size(); k < a.pos.size(); ++k)
            varargs.push_back(a.pos[k]);
        s->vars["varargs"] = Value::make_list(std::move(varargs));
        Value kwargs = Value::make_dict();
        for (size_t j = 0; j < a.kw.size(); ++j) {
            if (used_kw[j]) continue;
            if (a.kw[j].first == "caller")
                s->vars["caller"] = a.kw[j].second;
            else
                kwargs.dict->set(a.kw[j].first, a.kw[j].second);
        }
        s->vars["kwargs"] = kwargs;
        const std::string text = render_block(body, s, n.line);
        produce(text.size(), n.line);
        return Value::string(text);
    }

    // ---- expressions -----------------------------------------------------

    CallArgs eval_args(const std::vector<Arg> &args, const ScopePtr &scope, int line) {
        CallArgs out;
        out.line = line;
        for (const Arg &arg : args) {
            if (arg.spread == 1) {
                const Value v = eval(*arg.value, scope);
                for (const Value &x : iterable(v, line))
                    out.pos.push_back(x);
            } else if (arg.spread == 2) {
                const Value v = eval(*arg.value, scope);
                if (v.type != Type::Dict) fail_at(line, "** needs a dict");
                for (const auto &kv : v.dict->items)
                    out.kw.emplace_back(kv.first, kv.second);
            } else if (!arg.name.empty()) {
                out.kw.emplace_back(arg.name, eval(*arg.value, scope));
            } else {
                out.pos.push_back(eval(*arg.value, scope));
            }
        }
        return out;
    }

    Value call(const AstNode &n, const ScopePtr &scope, const Value *caller = nullptr) {
        if (n.kind != Node::Call) fail_at(n.line, "{% call %} needs a macro call");
        CallArgs args = eval_args(n.args, scope, n.line);
        if (caller) args.kw.emplace_back("caller", *caller);
        const AstNode &callee = *n.a;
        Value fn;
        if (callee.kind == Node::Attr) {
            const Value obj = eval(*callee.a, scope);
            const Value *member = (obj.type == Type::Dict || obj.type == Type::Namespace)
                                      ? obj.dict->find(callee.str)
                                      : nullptr;
            if (member) {
                fn = *member;
            } else {
                Value out;
                if (builtins_.method(obj, callee.str, args, n.line, out)) {
                    if (out.is_string()) produce(out.s.size(), n.line);
                    return out;
                }
                fail_at(n.line, "'", type_name(obj), "' has no method '", callee.str, "'");
            }
        } else {
            fn = eval(callee, scope);
        }
        if (fn.type != Type::Callable) {
            if (callee.kind == Node::Name && fn.is_undefined())
                fail_at(n.line, "'", callee.str, "' is undefined");
            fail_at(n.line, "cannot call a ", type_name(fn));
        }
        return (*fn.fn)(args);
    }

    template <typename Op> static int64_t checked(Op op, int line) {
        int64_t r = 0;
        if (op(r)) fail_at(line, "integer overflow");
        return r;
    }

    Value index(const Value &obj, const Value &key, int line) {
        if (obj.type == Type::Dict || obj.type == Type::Namespace) {
            if (!key.is_string()) return Value();
            const Value *v = obj.dict->find(key.s);
            return v ? *v : Value();
        }
        if (obj.is_list() || obj.is_string()) {
            if (key.type != Type::Int && key.type != Type::Bool) return Value();
            int64_t k = key.as_int();
            if (obj.is_list()) {
                const auto len = static_cast<int64_t>(obj.list->size());
                if (k < 0) k += len;
                if (k < 0 || k >= len) return Value();
                return (*obj.list)[static_cast<size_t>(k)];
            }
            const auto cps = code_points(obj.s);
            const auto len = static_cast<int64_t>(cps.size());
            if (k < 0) k += len;
            if (k < 0 || k >= len) return Value();
            return Value::string(from_code_points(&cps[static_cast<size_t>(k)], 1));
        }
        (void)line;
        return Value();
    }

    Value slice(const AstNode &n, const ScopePtr &scope) {
        const Value obj = eval(*n.a, scope);
        auto part = [&](const NodePtr &p, bool &given) -> int64_t {
            given = false;
            if (!p) return 0;
            const Value v = eval(*p, scope);
            if (v.is_none() || v.is_undefined()) return 0;
            if (v.type != Type::Int && v.type != Type::Bool)
                fail_at(n.line, "slice indices must be integers");
            given = true;
            return v.as_int();
        };
        bool has_start, has_stop, has_step;
        int64_t start = part(n.b, has_start), stop = part(n.c, has_stop),
                step = part(n.d, has_step);
        if (!has_step) step = 1;
        if (step == 0) fail_at(n.line, "slice step cannot be zero");
        std::vector<uint32_t> cps;
        int64_t len;
        if (obj.is_list()) {
            len = static_cast<int64_t>(obj.list->size());
        } else if (obj.is_string()) {
            cps = code_points(obj.s);
            len = static_cast<int64_t>(cps.size());
        } else if (obj.is_undefined()) {
            return Value();
        } else {
            fail_at(n.line, "cannot slice a ", type_name(obj));
        }
        // Python's slice.indices().
        auto adjust = [&](bool given, int64_t v, int64_t def) {
            if (!given) return def;
            if (v < 0) {
                v += len;
                if (v < 0) v = step < 0 ? -1 : 0;
            } else if (v >= len) {
                v = step < 0 ? len - 1 : len;
            }
            return v;
        };
        start = adjust(has_start, start, step < 0 ? len - 1 : 0);
        stop = adjust(has_stop, stop, step < 0 ? -1 : len);
        // How many picks, computed without overflowing start + step.
        int64_t count = 0;
        if (step > 0 && start < stop) count = (stop - start - 1) / step + 1;
        if (step < 0 && start > stop)
            count = step == INT64_MIN ? 1 : (start - stop - 1) / -step + 1;
        std::vector<size_t> picks;
        for (int64_t k = 0; k < count; ++k)
            picks.push_back(static_cast<size_t>(start + k * step));
        budget_.step(n.line, picks.size());
        if (obj.is_list()) {
            List out;
            out.reserve(picks.size());
            for (size_t k : picks)
                out.push_back((*obj.list)[k]);
            return Value::make_list(std::move(out));
        }
        std::string out;
        for (size_t k : picks)
            append_utf8(out, cps[k]);
        return Value::string(std::move(out));
    }

    bool contains(const Value &container, const Value &x, int line) {
        switch (container.type) {
        case Type::String:
            if (!x.is_string()) fail_at(line, "'in <string>' needs a string on the left");
            return container.s.find(x.s) != std::string::npos;
        case Type::List:
            for (const Value &v : *container.list)
                if (equals(v, x)) return true;
            return false;
        case Type::Dict:
        case Type::Namespace: return x.is_string() && container.dict->find(x.s) != nullptr;
        case Type::Undefined: return false;
        default: fail_at(line, "'in' needs a string, list or dict, not ", type_name(container));
        }
    }

    Value repeat(const Value &seq, int64_t times, int line) {
        if (times < 0) times = 0;
        if (seq.is_string()) {
            const auto total = static_cast<long double>(seq.s.size()) * times;
            budget_.string_size(static_cast<size_t>(std::min<long double>(total, 1e18L)), line);
            std::string out;
            for (int64_t k = 0; k < times; ++k)
                out += seq.s;
            produce(out.size(), line);
            return Value::string(std::move(out));
        }
        const auto total = static_cast<long double>(seq.list->size()) * times;
        budget_.items(static_cast<size_t>(std::min<long double>(total, 1e18L)), line);
        budget_.step(line, static_cast<uint64_t>(total));
        List out;
        for (int64_t k = 0; k < times; ++k)
            out.insert(out.end(), seq.list->begin(), seq.list->end());
        return Value::make_list(std::move(out));
    }

    Value binary(const AstNode &n, const ScopePtr &scope) {
        const std::string &op = n.str;
        const int line = n.line;
        Value l = eval(*n.a, scope);
        if (op == "and") return truthy(l) ? eval(*n.b, scope) : l;
        if (op == "or") return truthy(l) ? l : eval(*n.b, scope);
        const Value r = eval(*n.b, scope);
        if (op == "==") return Value::boolean(equals(l, r));
        if (op == "!=") return Value::boolean(!equals(l, r));
        if (op == "in") return Value::boolean(contains(r, l, line));
        if (op == "not in") return Value::boolean(!contains(r, l, line));
        if (op == "<") return Value::boolean(compare(l, r, line) < 0);
        if (op == ">") return Value::boolean(compare(l, r, line) > 0);
        if (op == "<=") return Value::boolean(compare(l, r, line) <= 0);
        if (op == ">=") return Value::boolean(compare(l, r, line) >= 0);
        if (op == "~") {
            std::string s = (l.is_string() ? l.s : to_str(l)) + (r.is_string() ? r.s : to_str(r));
            budget_.string_size(s.size(), line);
            produce(s.size(), line);
            return Value::string(std::move(s));
        }
        if (l.is_numeric() && r.is_numeric()) return arithmetic(op, l, r, line);
        if (op == "%" && l.is_string()) return printf_format(l.s, r, line);
        if (op == "+") {
            if (l.is_list() && r.is_list()) {
                budget_.items(l.list->size() + r.list->size(), line);
                List out = *l.list;
                out.insert(out.end(), r.list->begin(), r.list->end());
                return Value::make_list(std::move(out));
            }
            // A string and a number or bool concatenate (as in
            // @huggingface/jinja; Python would raise).
            const bool ls = l.is_string(), rs = r.is_string();
            if ((ls && (rs || r.is_numeric())) || (rs && l.is_numeric())) {
                std::string s = (ls ? l.s : to_str(l)) + (rs ? r.s : to_str(r));
                budget_.string_size(s.size(), line);
                produce(s.size(), line);
                return Value::string(std::move(s));
            }
        }
        if (op == "*") {
            if ((l.is_string() || l.is_list()) && (r.type == Type::Int || r.type == Type::Bool))
                return repeat(l, r.as_int(), line);
            if ((r.is_string() || r.is_list()) && (l.type == Type::Int || l.type == Type::Bool))
                return repeat(r, l.as_int(), line);
        }
        fail_at(line, "unsupported operand types for ", op, ": ", type_name(l), " and ",
                type_name(r));
    }

    // Python's "fmt" % args: %s %r %d %i %f (with a precision) and %%.
    Value printf_format(const std::string &fmt, const Value &args, int line) {
        List values = args.is_list() && args.tuple ? *args.list : List{args};
        size_t next = 0;
        std::string out;
        for (size_t k = 0; k < fmt.size(); ++k) {
            if (fmt[k] != '%') {
                out += fmt[k];
                continue;
            }
            if (++k >= fmt.size()) fail_at(line, "incomplete format");
            int precision = -1;
            if (fmt[k] == '.') {
                precision = 0;
                while (++k < fmt.size() && fmt[k] >= '0' && fmt[k] <= '9' && precision < 100)
                    precision = precision * 10 + (fmt[k] - '0');
                if (k >= fmt.size()) fail_at(line, "incomplete format");
            }
            const char c = fmt[k];
            if (c == '%') {
                out += '%';
                continue;
            }
            if (next >= values.size()) fail_at(line, "not enough arguments for format string");
            const Value &v = values[next++];
            if (c == 's') {
                out += v.is_string() ? v.s : to_str(v);
            } else if (c == 'r') {
                out += to_repr(v);
            } else if (c == 'd' || c == 'i') {
                if (!v.is_numeric()) fail_at(line, "%d format: a number is required");
                out += std::to_string(v.as_int());
            } else if (c == 'f') {
                if (!v.is_numeric()) fail_at(line, "%f format: a number is required");
                char buf[512];
                std::snprintf(buf, sizeof buf, "%.*f", precision < 0 ? 6 : precision,
                              v.as_double());
                out += buf;
            } else {
                fail_at(line, "unsupported format character '", c, "'");
            }
            budget_.string_size(out.size(), line);
        }
        if (next < values.size())
            fail_at(line, "not all arguments converted during string formatting");
        produce(out.size(), line);
        return Value::string(std::move(out));
    }

    Value arithmetic(const std::string &op, const Value &l, const Value &r, int line) {
        const bool fl = l.type == Type::Float || r.type == Type::Float;
        if (op == "/") {
            if (r.as_double() == 0) fail_at(line, "division by zero");
            return Value::number(l.as_double() / r.as_double());
        }
        if (fl) {
            const double a = l.as_double(), b = r.as_double();
            if (op == "+") return Value::number(a + b);
            if (op == "-") return Value::number(a - b);
            if (op == "*") return Value::number(a * b);
            if (op == "//" || op == "%") {
                if (b == 0) fail_at(line, "division by zero");
                double m = std::fmod(a, b);
                if (m != 0 && ((m < 0) != (b < 0))) m += b;
                if (op == "%") return Value::number(m);
                return Value::number(std::floor((a - m) / b + 0.5));
            }
            if (op == "**") {
                if (a == 0 && b < 0) fail_at(line, "0.0 cannot be raised to a negative power");
                return Value::number(std::pow(a, b));
            }
        } else {
            const int64_t a = l.as_int(), b = r.as_int();
            if (op == "+")
                return Value::integer(checked(
                    [&](int64_t &res) { return __builtin_add_overflow(a, b, &res); }, line));
            if (op == "-")
                return Value::integer(checked(
                    [&](int64_t &res) { return __builtin_sub_overflow(a, b, &res); }, line));
            if (op == "*")
                return Value::integer(checked(
                    [&](int64_t &res) { return __builtin_mul_overflow(a, b, &res); }, line));
            if (op == "//" || op == "%") {
                if (b == 0) fail_at(line, "integer division or modulo by zero");
                if (a == INT64_MIN && b == -1) fail_at(line, "integer overflow");
                int64_t q = a / b, m = a % b;
                if (m != 0 && ((m < 0) != (b < 0))) {
                    m += b;
                    --q;
                }
                return Value::integer(op == "//" ? q : m);
            }
            if (op == "**") {
                if (b < 0) {
                    if (a == 0) fail_at(line, "0.0 cannot be raised to a negative power");
                    return Value::number(std::pow(static_cast<double>(a), static_cast<double>(b)));
                }
                if (a == 0) return Value::integer(b == 0 ? 1 : 0);
                if (a == 1) return Value::integer(1);
                if (a == -1) return Value::integer(b % 2 ? -1 : 1);
                int64_t acc = 1;
                for (int64_t k = 0; k < b; ++k) // |a| >= 2 overflows within 63 steps
                    acc = checked(
                        [&](int64_t &res) { return __builtin_mul_overflow(acc, a, &res); }, line);
                return Value::integer(acc);
            }
        }
        fail_at(line, "unsupported operator ", op);
    }

    Value eval(const AstNode &n, const ScopePtr &scope) {
        Depth d(*this, n.line);
        budget_.step(n.line);
        switch (n.kind) {
        case Node::Literal: return n.value;
        case Node::Name: {
            const Value *v = scope->lookup(n.str);
            return v ? *v : Value();
        }
        case Node::Attr: {
            const Value obj = eval(*n.a, scope);
            if (obj.type == Type::Dict || obj.type == Type::Namespace) {
                const Value *v = obj.dict->find(n.str);
                return v ? *v : Value();
            }
            return Value();
        }
        case Node::Index: {
            const Value obj = eval(*n.a, scope);
            return index(obj, eval(*n.b, scope), n.line);
        }
        case Node::Slice: return slice(n, scope);
        case Node::Call: return call(n, scope);
        case Node::Filter: {
            if (!n.a) fail_at(n.line, "filter without a value");
            const Value x = eval(*n.a, scope);
            CallArgs args = eval_args(n.args, scope, n.line);
            Value v = builtins_.filter(n.str, x, args, n.line);
            if (v.is_string()) produce(v.s.size(), n.line);
            return v;
        }
        case Node::Test: {
            const Value x = eval(*n.a, scope);
            CallArgs args = eval_args(n.args, scope, n.line);
            const bool r = builtins_.test(n.str, x, args, n.line);
            return Value::boolean(n.negate ? !r : r);
        }
        case Node::Unary: {
            const Value x = eval(*n.a, scope);
            if (n.str == "not") return Value::boolean(!truthy(x));
            if (!x.is_numeric())
                fail_at(n.line, "bad operand type for unary ", n.str, ": ", type_name(x));
            if (n.str == "+") return x.type == Type::Bool ? Value::integer(x.as_int()) : x;
            if (x.type == Type::Float) return Value::number(-x.f);
            if (x.as_int() == INT64_MIN) fail_at(n.line, "integer overflow");
            return Value::integer(-x.as_int());
        }
        case Node::Binary: return binary(n, scope);
        case Node::Ternary:
            if (truthy(eval(*n.b, scope))) return eval(*n.a, scope);
            return n.c ? eval(*n.c, scope) : Value();
        case Node::ListLit:
        case Node::TupleLit: {
            List items;
            for (const NodePtr &item : n.items)
                items.push_back(eval(*item, scope));
            return n.kind == Node::TupleLit ? Value::make_tuple(std::move(items))
                                            : Value::make_list(std::move(items));
        }
        case Node::DictLit: {
            Value dict = Value::make_dict();
            for (size_t k = 0; k + 1 < n.items.size(); k += 2) {
                const Value key = eval(*n.items[k], scope);
                if (!key.is_string()) fail_at(n.line, "dict keys must be strings");
                dict.dict->set(key.s, eval(*n.items[k + 1], scope));
            }
            return dict;
        }
        default: fail_at(n.line, "a statement where an expression was expected");
        }
    }
};

} // namespace

std::string evaluate(const std::vector<NodePtr> &program, ScopePtr globals,
                     const JinjaLimits &limits) {
    Arena arena(limits.max_string);
    Interp interp(limits);
    // The builtins sit under the caller's variables, which may shadow them.
    auto root = interp.new_scope(nullptr);
    interp.add_globals(*root);
    Scope *bottom = globals.get();
    while (bottom->parent)
        bottom = bottom->parent.get();
    bottom->parent = root;
    auto top = interp.new_scope(globals);
    std::string out = interp.run(program, top);
    bottom->parent.reset();
    return out;
}

} // namespace llm::jinja
