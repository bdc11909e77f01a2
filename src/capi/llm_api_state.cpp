// The C API of saved states and shared prefixes (since 1.4): a context's
// tokens, KV cache, logits and text stream to a buffer or file and back, and
// one context's first tokens' KV copied into another.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "capi/capi_internal.h"
#include "common/mapped_file.h"
#include "engine/context_state.h"

#ifdef _WIN32
#include <windows.h>
#endif

using namespace llm::capi;

namespace {

// The held-back bytes of ctx's text stream: the tail of what its tokens
// decode to (the stream only ever holds back the end of the text it got).
std::string stream_pending(const llm_context *ctx) {
    const size_t k = ctx->stream.utf8.pending_bytes();
    if (k == 0) return {};
    llm::DecodeState st;
    std::string text;
    for (size_t i = 0; i < ctx->stream_pos && i < ctx->tokens.size(); ++i)
        ctx->stream.model->tokenizer->decode_append(st, ctx->tokens[i], false, text);
    return text.size() >= k ? text.substr(text.size() - k) : std::string();
}

llm::ContextStateData snapshot(const llm_context *ctx) {
    llm::ContextStateData d;
    d.tokens = ctx->tokens;
    d.has_logits = ctx->has_logits;
    if (ctx->has_logits) d.logits = ctx->logits;
    d.stream_pending = stream_pending(ctx);
    return d;
}

std::vector<uint8_t> save_state(const llm_context *ctx) {
    const llm::KVCache &cache = ctx->transformer->cache();
    const llm::ContextStateData d = snapshot(ctx);
    std::vector<uint8_t> out(llm::context_state_size(cache, d));
    llm::write_context_state(llm::model_fingerprint(*ctx->owner->model), cache, d, out.data());
    return out;
}

// The text stream as after the state's tokens: its decoding state is rebuilt
// from the tokens on the next step (stream_pos 0), the held-back bytes wait.
void restore_stream(llm_context *ctx, const std::string &pending) {
    ctx->stream.state = {};
    ctx->stream.utf8.reset();
    ctx->stream_pos = 0;
    if (pending.empty()) return;
    std::string ignored;
    ctx->stream.utf8.push(pending, ignored);
    if (!ignored.empty() || ctx->stream.utf8.pending_bytes() != pending.size())
        ctx->stream.utf8.reset();
}

void load_state(llm_context *ctx, const uint8_t *buf, size_t len) {
    llm::KVCache &cache = ctx->transformer->cache();
    llm::ParsedContextState s =
        llm::parse_context_state(llm::model_fingerprint(*ctx->owner->model), cache, buf, len);
    // Checked: nothing below fails (the vectors have their sizes already).
    cache.deserialize(static_cast<int32_t>(s.data.tokens.size()), s.kv_type, s.kv);
    ctx->tokens = std::move(s.data.tokens);
    ctx->has_logits = s.data.has_logits;
    if (ctx->has_logits) ctx->logits = std::move(s.data.logits);
    restore_stream(ctx, s.data.stream_pending);
}

std::FILE *open_for_writing(const char *path) {
#ifdef _WIN32
    const int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, nullptr, 0);
    if (n <= 0) return nullptr;
    std::wstring w(static_cast<size_t>(n), L'\0');
    MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, &w[0], n);
    return _wfopen(w.c_str(), L"wb");
#else
    return std::fopen(path, "wb");
#endif
}

void write_file(const char *path, const std::vector<uint8_t> &bytes) {
    std::FILE *f = open_for_writing(path);
    if (!f)
        llm::fail(errno == ENOENT ? LLM_ERR_NOT_FOUND : LLM_ERR_IO, path,
                  ": cannot open for writing: ", std::strerror(errno));
    const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
    const bool closed = std::fclose(f) == 0;
    if (!ok || !closed) {
        std::remove(path);
        llm::fail(LLM_ERR_IO, path, ": cannot write the state (", bytes.size(), " bytes)");
    }
}

} // namespace

extern "C" {

llm_status llm_context_state_size(const llm_context *ctx, size_t *out) {
    if (out) *out = 0;
    if (!ctx || !out) return invalid("llm_context_state_size: ctx and out must not be NULL");
    return guarded([&] {
        *out = llm::context_state_size(ctx->transformer->cache(), snapshot(ctx));
        return LLM_OK;
    });
}

llm_status llm_context_state_save(const llm_context *ctx, void *buf, size_t cap, size_t *n_out) {
    if (n_out) *n_out = 0;
    if (!ctx) return invalid("llm_context_state_save: context is NULL");
    if (!buf && cap) return invalid("llm_context_state_save: buf is NULL but cap > 0");
    return guarded([&] {
        const std::vector<uint8_t> state = save_state(ctx);
        return copy_out(state.data(), state.size(), 1, buf, cap, n_out);
    });
}

llm_status llm_context_state_load(llm_context *ctx, const void *buf, size_t len) {
    if (!ctx) return invalid("llm_context_state_load: context is NULL");
    if (!buf && len) return invalid("llm_context_state_load: buf is NULL but len > 0");
    return guarded([&] {
        load_state(ctx, static_cast<const uint8_t *>(buf), len);
        return LLM_OK;
    });
}

llm_status llm_context_state_save_file(const llm_context *ctx, const char *path) {
    if (!ctx || !path) return invalid("llm_context_state_save_file: ctx and path must not be NULL");
    return guarded([&] {
        write_file(path, save_state(ctx));
        return LLM_OK;
    });
}

llm_status llm_context_state_load_file(llm_context *ctx, const char *path) {
    if (!ctx || !path) return invalid("llm_context_state_load_file: ctx and path must not be NULL");
    return guarded([&] {
        if (llm::path_is_directory(path))
            llm::fail(LLM_ERR_IO, path, ": is a directory, not a state file");
        const auto file = llm::MappedFile::open(path);
        load_state(ctx, file->data(), file->size());
        return LLM_OK;
    });
}

llm_status llm_context_copy_prefix(llm_context *dst, const llm_context *src, int32_t n_tokens) {
    if (!dst || !src) return invalid("llm_context_copy_prefix: dst and src must not be NULL");
    if (dst == src)
        return invalid("llm_context_copy_prefix: dst and src are the same context (rewind it)");
    if (n_tokens < 0 || static_cast<size_t>(n_tokens) > src->tokens.size())
        return set_error(LLM_ERR_INVALID_ARGUMENT,
                         "llm_context_copy_prefix: n_tokens " + std::to_string(n_tokens) +
                             " is outside 0.." + std::to_string(src->tokens.size()) +
                             " (the source's position)");
    return guarded([&] {
        if (dst->owner != src->owner) {
            const std::string diff =
                llm::fingerprint_difference(llm::model_fingerprint(*dst->owner->model),
                                            llm::model_fingerprint(*src->owner->model));
            if (!diff.empty())
                llm::fail(LLM_ERR_STATE_MISMATCH,
                          "llm_context_copy_prefix: the contexts run different models: ", diff);
        }
        llm::KVCache &cache = dst->transformer->cache();
        if (n_tokens > cache.n_ctx())
            llm::fail(LLM_ERR_CONTEXT_FULL, "llm_context_copy_prefix: ", n_tokens,
                      " tokens do not fit a context of ", cache.n_ctx());
        const size_t n = static_cast<size_t>(n_tokens);
        const bool whole = n == src->tokens.size();
        // Allocations first, so a failure leaves dst as it was.
        std::string pending = whole ? stream_pending(src) : std::string();
        std::vector<llm_token> tokens(src->tokens.begin(), src->tokens.begin() + n_tokens);
        cache.copy_prefix_from(src->transformer->cache(), n_tokens);
        dst->tokens.swap(tokens);
        dst->has_logits = whole && src->has_logits;
        if (dst->has_logits) dst->logits = src->logits;
        restore_stream(dst, pending);
        return LLM_OK;
    });
}

} // extern "C"
