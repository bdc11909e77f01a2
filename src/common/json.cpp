#include "common/json.h"

#include <set>
#include <vector>

#include "common/error.h"

namespace llm {

Json parse_json(const char *begin, const char *end, const std::string &what) {
    // The parser reports each object's keys in order: one set per open object.
    std::vector<std::set<std::string>> open_objects;
    std::string duplicate;
    auto check_keys = [&](int, Json::parse_event_t event, Json &parsed) {
        switch (event) {
        case Json::parse_event_t::object_start: open_objects.emplace_back(); break;
        case Json::parse_event_t::object_end:
            if (!open_objects.empty()) open_objects.pop_back();
            break;
        case Json::parse_event_t::key:
            if (!open_objects.empty() && duplicate.empty() &&
                !open_objects.back().insert(parsed.get<std::string>()).second)
                duplicate = parsed.get<std::string>();
            break;
        default: break;
        }
        return true;
    };
    Json out;
    try {
        out = Json::parse(begin, end, check_keys);
    } catch (const Json::exception &e) {
        fail(LLM_ERR_FORMAT, what, ": invalid JSON: ", e.what());
    }
    if (!duplicate.empty()) fail(LLM_ERR_FORMAT, what, ": duplicate JSON key \"", duplicate, "\"");
    return out;
}

} // namespace llm
