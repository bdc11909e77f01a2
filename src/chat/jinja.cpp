#include "chat/jinja.h"

#include "chat/jinja_eval.h"
#include "chat/jinja_lexer.h"
#include "chat/jinja_parser.h"
#include "chat/jinja_value.h"

namespace llm {

std::string render_chat_template(const std::string &tmpl, const nlohmann::ordered_json &context,
                                 const JinjaLimits &limits) {
    using namespace jinja;
    if (tmpl.size() > limits.max_template) fail_at(0, "template too large");
    if (!context.is_object())
        fail(LLM_ERR_INVALID_ARGUMENT, "chat template context must be a JSON object");
    const std::vector<NodePtr> program = parse(tokenize(tmpl));
    Arena arena(limits.max_string); // the context's lists and dicts too
    auto globals = std::make_shared<Scope>();
    for (auto it = context.begin(); it != context.end(); ++it)
        globals->vars[it.key()] = from_json(it.value());
    std::string out = evaluate(program, globals, limits);
    globals->vars.clear();
    return out;
}

std::string render_chat_template(const std::string &tmpl, const std::string &context_json,
                                 const JinjaLimits &limits) {
    nlohmann::ordered_json context;
    try {
        context = nlohmann::ordered_json::parse(context_json);
    } catch (const nlohmann::json::exception &e) {
        fail(LLM_ERR_INVALID_ARGUMENT, "chat template variables: invalid JSON: ", e.what());
    }
    if (!context.is_object())
        fail(LLM_ERR_INVALID_ARGUMENT, "chat template variables must be a JSON object");
    return render_chat_template(tmpl, context, limits);
}

} // namespace llm
