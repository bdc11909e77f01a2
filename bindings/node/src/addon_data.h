// Per-environment state of the addon (one per Node.js thread/worker that
// loads it).
#pragma once

#include <napi.h>

namespace llmnode {

struct AddonData {
    Napi::FunctionReference model_class;
    Napi::FunctionReference session_class;
    Napi::FunctionReference generation_class;
    Napi::FunctionReference error_class;

    static AddonData &Of(Napi::Env env) { return *env.GetInstanceData<AddonData>(); }
};

} // namespace llmnode
