// NativeSession: one llm_context (lib/session.js builds Session on it), and
// NativeGeneration: the control handle of one running generation.
#pragma once

#include <napi.h>

#include <memory>

#include "generation.h"
#include "handles.h"

namespace llmnode {

class SessionWrap : public Napi::ObjectWrap<SessionWrap> {
  public:
    static Napi::Function Define(Napi::Env env);
    static Napi::Object NewInstance(Napi::Env env, std::shared_ptr<ContextHandle> ctx);
    explicit SessionWrap(const Napi::CallbackInfo &info);
    ~SessionWrap() override;

  private:
    ContextHandle &Get(Napi::Env env) const;     // throws once disposed
    ContextHandle &GetIdle(Napi::Env env) const; // ... or while generating

    Napi::Value Generate(const Napi::CallbackInfo &info);
    Napi::Value Position(const Napi::CallbackInfo &info);
    Napi::Value ContextLength(const Napi::CallbackInfo &info);
    Napi::Value Tokens(const Napi::CallbackInfo &info);
    Napi::Value IsBusy(const Napi::CallbackInfo &info);
    void Reset(const Napi::CallbackInfo &info);
    void Rewind(const Napi::CallbackInfo &info);
    Napi::Value Tokenize(const Napi::CallbackInfo &info);
    Napi::Value Detokenize(const Napi::CallbackInfo &info);
    void Dispose(const Napi::CallbackInfo &info);
    // Saved states and shared prefixes (session_state.cc).
    Napi::Value SaveState(const Napi::CallbackInfo &info);
    void LoadState(const Napi::CallbackInfo &info);
    void CopyPrefixFrom(const Napi::CallbackInfo &info);

    std::shared_ptr<ContextHandle> ctx_; // empty once disposed
    std::weak_ptr<Generation> active_;   // the generation running on ctx_, if any
};

class GenerationWrap : public Napi::ObjectWrap<GenerationWrap> {
  public:
    static Napi::Function Define(Napi::Env env);
    static Napi::Object NewInstance(Napi::Env env, std::shared_ptr<Generation> generation);
    explicit GenerationWrap(const Napi::CallbackInfo &info);

  private:
    void Pull(const Napi::CallbackInfo &info);   // pull(n): the consumer took n pieces
    void Cancel(const Napi::CallbackInfo &info); // cancel(): stop the worker

    std::shared_ptr<Generation> generation_;
};

} // namespace llmnode
