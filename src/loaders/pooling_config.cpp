#include "loaders/pooling_config.h"

#include "common/error.h"
#include "common/json.h"
#include "common/mapped_file.h"

namespace llm {

namespace {
constexpr size_t kMaxConfigBytes = 1 << 20;

// The folder of modules.json's Pooling module ("1_Pooling" by convention).
std::string pooling_module_path(const std::string &folder) {
    const std::string modules = path_join(folder, "modules.json");
    if (!path_exists(modules)) return "1_Pooling";
    const Json list = parse_json(read_text_file(modules, kMaxConfigBytes), modules);
    if (!list.is_array()) fail(LLM_ERR_FORMAT, modules, ": not a JSON array");
    for (const Json &m : list) {
        if (!m.is_object()) continue;
        const auto type = m.find("type"), path = m.find("path");
        if (type != m.end() && type->is_string() && path != m.end() && path->is_string() &&
            type->get<std::string>() == "sentence_transformers.models.Pooling") {
            const std::string p = path->get<std::string>();
            // A path inside the folder only.
            if (p.empty() || p.find("..") != std::string::npos || p[0] == '/' ||
                p.find('\\') != std::string::npos)
                fail(LLM_ERR_FORMAT, modules, ": Pooling module path \"", p, "\" is not allowed");
            return p;
        }
    }
    return "1_Pooling";
}
} // namespace

void read_pooling_config(const std::string &folder, Model &model) {
    const std::string config =
        path_join(path_join(folder, pooling_module_path(folder)), "config.json");
    if (!path_exists(config)) return;
    const Json j = parse_json(read_text_file(config, kMaxConfigBytes), config);
    if (!j.is_object()) fail(LLM_ERR_FORMAT, config, ": not a JSON object");
    auto on = [&](const char *key) {
        const auto it = j.find(key);
        return it != j.end() && it->is_boolean() && it->get<bool>();
    };
    // Modes libllm lacks (max, weighted mean) are left out: the default applies.
    const char *mode = on("pooling_mode_lasttoken")     ? "last"
                       : on("pooling_mode_cls_token")   ? "first"
                       : on("pooling_mode_mean_tokens") ? "mean"
                                                        : nullptr;
    if (mode) model.metadata[kPoolingMetaKey] = mode;
}

} // namespace llm
