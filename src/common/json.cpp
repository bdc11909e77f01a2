#include "common/json.h"

#include "common/error.h"

namespace llm {

bool JsonTreeBuilder::key(std::string &k) {
    auto done = stack_.back()->get_ref<Json::object_t &>().emplace(std::move(k), nullptr);
    if (!done.second && duplicate.empty()) duplicate = done.first->first;
    slot_ = &done.first->second; // a repeated key's last value wins, as in Json::parse
    return true;
}

Json *JsonTreeBuilder::add(Json &&v) {
    if (stack_.empty()) {
        root = std::move(v);
        return &root;
    }
    Json &top = *stack_.back();
    if (top.is_array()) {
        auto &items = top.get_ref<Json::array_t &>();
        items.push_back(std::move(v));
        return &items.back();
    }
    *slot_ = std::move(v);
    return slot_;
}

Json *JsonTreeBuilder::open(Json::value_t type) {
    Json *v = add(Json(type));
    stack_.push_back(v);
    return v;
}

void JsonTreeBuilder::check(const std::string &what) const {
    if (!error.empty()) fail(LLM_ERR_FORMAT, what, ": invalid JSON: ", error);
    if (!duplicate.empty()) fail(LLM_ERR_FORMAT, what, ": duplicate JSON key \"", duplicate, "\"");
}

Json parse_json(const char *begin, const char *end, const std::string &what) {
    JsonTreeBuilder tree;
    bool ok = false;
    try {
        ok = Json::sax_parse(begin, end, &tree);
    } catch (const Json::exception &e) {
        fail(LLM_ERR_FORMAT, what, ": invalid JSON: ", e.what());
    }
    tree.check(what);
    if (!ok) fail(LLM_ERR_FORMAT, what, ": invalid JSON");
    return std::move(tree.root);
}

} // namespace llm
