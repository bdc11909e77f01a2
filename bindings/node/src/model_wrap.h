// NativeModel: the JS face of a loaded llm_model (lib/model.js builds the
// public Model class on it).
#pragma once

#include <napi.h>

#include <memory>

#include "handles.h"

namespace llmnode {

class ModelWrap : public Napi::ObjectWrap<ModelWrap> {
  public:
    static Napi::Function Define(Napi::Env env);
    static Napi::Object NewInstance(Napi::Env env, std::shared_ptr<ModelHandle> handle);
    explicit ModelWrap(const Napi::CallbackInfo &info);

  private:
    llm_model *Get(Napi::Env env) const; // throws once disposed

    Napi::Value Info(const Napi::CallbackInfo &info);
    Napi::Value Tokenize(const Napi::CallbackInfo &info);
    Napi::Value Detokenize(const Napi::CallbackInfo &info);
    Napi::Value TokenPiece(const Napi::CallbackInfo &info);
    Napi::Value FormatChat(const Napi::CallbackInfo &info);
    Napi::Value ApplyChatTemplate(const Napi::CallbackInfo &info);
    Napi::Value ChatTemplate(const Napi::CallbackInfo &info);
    Napi::Value ParseChat(const Napi::CallbackInfo &info);
    Napi::Value IsEog(const Napi::CallbackInfo &info);
    Napi::Value IsSpecial(const Napi::CallbackInfo &info);
    Napi::Value Metadata(const Napi::CallbackInfo &info);
    Napi::Value Meta(const Napi::CallbackInfo &info);
    Napi::Value CreateSession(const Napi::CallbackInfo &info);
    Napi::Value Embed(const Napi::CallbackInfo &info);
    Napi::Value DefaultPooling(const Napi::CallbackInfo &info);
    void Dispose(const Napi::CallbackInfo &info);

    std::shared_ptr<ModelHandle> handle_; // empty once disposed
};

// loadModel(path, tokenizerPath: string|null, weightType: number, mmap: boolean)
//   -> Promise<NativeModel>; the file is read on a libuv worker thread.
Napi::Value LoadModel(const Napi::CallbackInfo &info);

} // namespace llmnode
