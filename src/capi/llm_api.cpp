// The C ABI: a thin layer that checks arguments, calls into the engine and
// turns every C++ exception into a status code plus a thread-local message.
// Nothing below may throw past an extern "C" function.
#include "llm.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <iterator>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "capi/capi_internal.h"
#include "chat/chat_template.h"
#include "common/error.h"
#include "common/log.h"
#include "engine/transformer.h"
#include "kernels/kernel_table.h"
#include "kernels/thread_pool.h"
#include "loaders/loader.h"
#include "sampler/sampler.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/utf8_stream.h"

namespace llm::capi {

thread_local std::string t_last_error;

llm_status set_error(llm_status status, const std::string &message) {
    t_last_error = message;
    llm::log(LLM_LOG_DEBUG, "error ", status, ": ", message);
    return status;
}

} // namespace llm::capi

using namespace llm::capi;

extern "C" {

const char *llm_version(void) {
    return LLM_VERSION_STRING;
}
int32_t llm_version_number(void) {
    return LLM_VERSION_NUMBER;
}

const char *llm_system_info(void) {
    static const std::string info = [] {
        std::string s = "simd=";
        s += llm::simd_level_name(llm::kernel_table().level);
        s += " simd_best=";
        s += llm::simd_level_name(llm::detect_simd_level());
        s += " cores=" + std::to_string(llm::ThreadPool::physical_cores());
        return s;
    }();
    return info.c_str();
}

const char *llm_status_str(llm_status s) {
    switch (s) {
    case LLM_OK: return "ok";
    case LLM_ERR_INVALID_ARGUMENT: return "invalid argument";
    case LLM_ERR_NOT_FOUND: return "file not found";
    case LLM_ERR_IO: return "I/O error";
    case LLM_ERR_TRUNCATED: return "file truncated";
    case LLM_ERR_SIZE_MISMATCH: return "file size does not match its header";
    case LLM_ERR_BAD_DIMENSIONS: return "bad model dimensions";
    case LLM_ERR_FORMAT: return "malformed file";
    case LLM_ERR_TOKENIZER_MISMATCH: return "tokenizer does not match the model";
    case LLM_ERR_UNSUPPORTED: return "unsupported model feature";
    case LLM_ERR_TOKEN_OUT_OF_RANGE: return "token id out of range";
    case LLM_ERR_CONTEXT_FULL: return "context full";
    case LLM_ERR_BUFFER_TOO_SMALL: return "buffer too small";
    case LLM_ERR_CANCELLED: return "cancelled";
    case LLM_ERR_OUT_OF_MEMORY: return "out of memory";
    case LLM_ERR_INTERNAL: return "internal error";
    case LLM_ERR_TEMPLATE: return "chat template error";
    case LLM_ERR_GRAMMAR: return "bad grammar or schema";
    case LLM_ERR_STATE_MISMATCH: return "saved state does not match";
    default: return "unknown status";
    }
}

const char *llm_last_error(void) {
    return t_last_error.c_str();
}

void llm_log_set(llm_log_callback callback, void *user_data, int32_t min_level) {
    llm::log_set(callback, user_data, min_level);
}

/* ---- model ---- */

llm_model_params llm_model_default_params(void) {
    llm_model_params p;
    std::memset(&p, 0, sizeof p);
    p.struct_size = sizeof p;
    p.tokenizer_path = nullptr;
    p.weight_type = LLM_WEIGHTS_AUTO;
    p.use_mmap = 1;
    return p;
}

llm_status llm_model_load(const char *path, const llm_model_params *params, llm_model **out) {
    if (out) *out = nullptr;
    if (!path) return invalid("llm_model_load: path is NULL");
    if (!out) return invalid("llm_model_load: out is NULL");
    return guarded([&] {
        llm_model_params p = read_params(params, llm_model_default_params());
        llm::LoadOptions o;
        if (p.tokenizer_path) o.tokenizer_path = p.tokenizer_path;
        o.weight_type = p.weight_type;
        o.use_mmap = p.use_mmap != 0;
        auto m = std::make_unique<llm_model>();
        m->model = llm::load_model(path, o);
        llm::log(LLM_LOG_INFO, "loaded ", path, ": ", m->model->config.arch, ", ",
                 m->model->n_params(), " parameters");
        *out = m.release();
        return LLM_OK;
    });
}

void llm_model_free(llm_model *model) {
    delete model;
}

#define MODEL_GETTER(name, expr)                                                                   \
    int32_t name(const llm_model *model) {                                                         \
        return model ? (expr) : 0;                                                                 \
    }
MODEL_GETTER(llm_model_n_vocab, model->model->config.vocab_size)
MODEL_GETTER(llm_model_n_ctx_train, model->model->config.max_seq_len)
MODEL_GETTER(llm_model_n_embd, model->model->config.dim)
MODEL_GETTER(llm_model_n_layer, model->model->config.n_layers)
MODEL_GETTER(llm_model_n_head, model->model->config.n_heads)
MODEL_GETTER(llm_model_n_head_kv, model->model->config.n_kv_heads)
#undef MODEL_GETTER

int64_t llm_model_n_params(const llm_model *model) {
    return model ? model->model->n_params() : 0;
}
int64_t llm_model_weight_bytes(const llm_model *model) {
    return model ? model->model->weight_bytes() : 0;
}

int32_t llm_model_weight_type(const llm_model *model) {
    if (!model) return LLM_WEIGHTS_AUTO;
    switch (model->model->weights.layers[0].wq.type) {
    case llm::DType::F32: return LLM_WEIGHTS_F32;
    case llm::DType::BF16: return LLM_WEIGHTS_BF16;
    case llm::DType::F16: return LLM_WEIGHTS_F16;
    case llm::DType::Q8_0: return LLM_WEIGHTS_Q8_0;
    case llm::DType::Q4_0: return LLM_WEIGHTS_Q4_0;
    case llm::DType::Q4_1: return LLM_WEIGHTS_Q4_1;
    case llm::DType::Q5_0: return LLM_WEIGHTS_Q5_0;
    case llm::DType::Q5_1: return LLM_WEIGHTS_Q5_1;
    case llm::DType::Q4_K: return LLM_WEIGHTS_Q4_K;
    case llm::DType::Q5_K: return LLM_WEIGHTS_Q5_K;
    case llm::DType::Q6_K: return LLM_WEIGHTS_Q6_K;
    }
    return LLM_WEIGHTS_AUTO;
}

const char *llm_model_arch(const llm_model *model) {
    if (!model) return "";
    const std::string &arch = model->model->config.arch;
    for (const char *known : {"qwen2", "qwen3", "gemma3"})
        if (arch == known) return known;
    return "llama";
}

int32_t llm_model_meta_count(const llm_model *model) {
    return model ? static_cast<int32_t>(model->model->metadata.size()) : 0;
}

llm_status llm_model_meta_key(const llm_model *model, int32_t index, char *buf, size_t cap,
                              size_t *n_out) {
    if (n_out) *n_out = 0;
    if (!model) return invalid("llm_model_meta_key: model is NULL");
    if (!buf && cap) return invalid("llm_model_meta_key: buf is NULL but cap > 0");
    const auto &meta = model->model->metadata;
    if (index < 0 || static_cast<size_t>(index) >= meta.size())
        return invalid("llm_model_meta_key: index is out of range");
    auto it = meta.begin();
    std::advance(it, index);
    return copy_out(it->first.data(), it->first.size(), 1, buf, cap, n_out);
}

llm_status llm_model_meta_value(const llm_model *model, const char *key, char *buf, size_t cap,
                                size_t *n_out) {
    if (n_out) *n_out = 0;
    if (!model) return invalid("llm_model_meta_value: model is NULL");
    if (!key) return invalid("llm_model_meta_value: key is NULL");
    if (!buf && cap) return invalid("llm_model_meta_value: buf is NULL but cap > 0");
    const auto &meta = model->model->metadata;
    const auto it = meta.find(key);
    if (it == meta.end())
        return set_error(LLM_ERR_NOT_FOUND, std::string("no metadata key ") + key);
    return copy_out(it->second.data(), it->second.size(), 1, buf, cap, n_out);
}

namespace {
constexpr const char *kWeightTypeNames[] = {"auto", "f32",  "bf16", "f16",  "q8_0", "q4_0",
                                            "q4_1", "q5_0", "q5_1", "q4_k", "q5_k", "q6_k"};
} // namespace

const char *llm_weight_type_name(int32_t weight_type) {
    const int32_t n = static_cast<int32_t>(sizeof kWeightTypeNames / sizeof *kWeightTypeNames);
    return weight_type >= 0 && weight_type < n ? kWeightTypeNames[weight_type] : "";
}

int32_t llm_weight_type_from_name(const char *name) {
    if (!name) return -1;
    const int32_t n = static_cast<int32_t>(sizeof kWeightTypeNames / sizeof *kWeightTypeNames);
    for (int32_t i = 0; i < n; ++i)
        if (std::strcmp(name, kWeightTypeNames[i]) == 0) return i;
    return -1;
}

llm_token llm_model_bos(const llm_model *model) {
    return model ? model->model->tokenizer->bos() : LLM_TOKEN_NONE;
}
llm_token llm_model_eos(const llm_model *model) {
    return model ? model->model->tokenizer->eos() : LLM_TOKEN_NONE;
}

int32_t llm_token_is_eog(const llm_model *model, llm_token token) {
    if (!model) return 0;
    const auto &e = model->model->eog_tokens;
    return std::find(e.begin(), e.end(), token) != e.end() ? 1 : 0;
}

int32_t llm_token_is_special(const llm_model *model, llm_token token) {
    if (!model || token < 0 || token >= model->model->tokenizer->vocab_size()) return 0;
    return model->model->tokenizer->is_special(token) ? 1 : 0;
}

/* ---- tokenizer ---- */

llm_status llm_tokenize(const llm_model *model, const char *text, size_t text_len, int32_t flags,
                        llm_token *out, size_t cap, size_t *n_out) {
    if (n_out) *n_out = 0;
    if (!model) return invalid("llm_tokenize: model is NULL");
    if (!text && text_len) return invalid("llm_tokenize: text is NULL");
    if (!out && cap) return invalid("llm_tokenize: out is NULL but cap > 0");
    if (flags & ~(LLM_TOKENIZE_ADD_SPECIAL | LLM_TOKENIZE_PARSE_SPECIAL))
        return invalid("llm_tokenize: unknown flags");
    return guarded([&] {
        auto ids = model->model->tokenizer->encode(std::string_view(text ? text : "", text_len),
                                                   flags & LLM_TOKENIZE_ADD_SPECIAL,
                                                   flags & LLM_TOKENIZE_PARSE_SPECIAL);
        return copy_out(ids.data(), ids.size(), sizeof(llm_token), out, cap, n_out);
    });
}

llm_status llm_token_to_piece(const llm_model *model, llm_token token, char *buf, size_t cap,
                              size_t *n_out) {
    if (n_out) *n_out = 0;
    if (!model) return invalid("llm_token_to_piece: model is NULL");
    if (!buf && cap) return invalid("llm_token_to_piece: buf is NULL but cap > 0");
    return guarded([&] {
        check_token(*model->model, token);
        if (token >= model->model->tokenizer->vocab_size())
            return copy_out("", 0, 1, buf, cap, n_out);
        std::string p = model->model->tokenizer->piece(token);
        return copy_out(p.data(), p.size(), 1, buf, cap, n_out);
    });
}

llm_status llm_detokenize(const llm_model *model, const llm_token *tokens, size_t n_tokens,
                          int32_t flags, char *buf, size_t cap, size_t *n_out) {
    if (n_out) *n_out = 0;
    if (!model) return invalid("llm_detokenize: model is NULL");
    if (!tokens && n_tokens) return invalid("llm_detokenize: tokens is NULL");
    if (!buf && cap) return invalid("llm_detokenize: buf is NULL but cap > 0");
    return guarded([&] {
        const llm::Tokenizer &tok = *model->model->tokenizer;
        for (size_t i = 0; i < n_tokens; ++i)
            check_token(*model->model, tokens[i]);
        llm::DecodeState st;
        std::string text;
        for (size_t i = 0; i < n_tokens; ++i)
            tok.decode_append(st, tokens[i], flags & LLM_DETOKENIZE_RENDER_SPECIAL, text);
        return copy_out(text.data(), text.size(), 1, buf, cap, n_out);
    });
}

llm_status llm_detokenizer_new(const llm_model *model, llm_detokenizer **out) {
    if (out) *out = nullptr;
    if (!model || !out) return invalid("llm_detokenizer_new: model and out must not be NULL");
    return guarded([&] {
        *out = new llm_detokenizer{model->model.get(), {}, {}, {}};
        return LLM_OK;
    });
}

void llm_detokenizer_free(llm_detokenizer *d) {
    delete d;
}

size_t llm_detokenizer_max_bytes(const llm_detokenizer *d) {
    // A piece, plus up to 3 held-back bytes that may each turn into U+FFFD.
    return d ? d->model->tokenizer->max_piece_bytes() * 3 + 16 : 0;
}

llm_status llm_detokenizer_push(llm_detokenizer *d, llm_token token, char *buf, size_t cap,
                                size_t *n_out) {
    if (n_out) *n_out = 0;
    if (!d) return invalid("llm_detokenizer_push: detokenizer is NULL");
    if (!buf && cap) return invalid("llm_detokenizer_push: buf is NULL but cap > 0");
    return guarded([&] {
        check_token(*d->model, token);
        // Work on copies so a too-small buffer consumes nothing.
        llm_detokenizer trial = *d;
        std::string text;
        detok_push(trial, token, text);
        llm_status s = copy_out(text.data(), text.size(), 1, buf, cap, n_out);
        if (s == LLM_OK) *d = std::move(trial);
        return s;
    });
}

llm_status llm_detokenizer_flush(llm_detokenizer *d, char *buf, size_t cap, size_t *n_out) {
    if (n_out) *n_out = 0;
    if (!d) return invalid("llm_detokenizer_flush: detokenizer is NULL");
    if (!buf && cap) return invalid("llm_detokenizer_flush: buf is NULL but cap > 0");
    return guarded([&] {
        llm::Utf8Stream trial = d->utf8;
        std::string text;
        trial.flush(text);
        llm_status s = copy_out(text.data(), text.size(), 1, buf, cap, n_out);
        if (s == LLM_OK) {
            d->utf8.reset();
            d->state = {};
        }
        return s;
    });
}

void llm_detokenizer_reset(llm_detokenizer *d) {
    if (!d) return;
    d->utf8.reset();
    d->state = {};
}

/* ---- chat ---- */

llm_status llm_chat_format(const llm_model *model, const llm_chat_message *messages,
                           size_t n_messages, int32_t add_assistant, char *buf, size_t cap,
                           size_t *n_out) {
    if (n_out) *n_out = 0;
    if (!model) return invalid("llm_chat_format: model is NULL");
    if (!messages && n_messages) return invalid("llm_chat_format: messages is NULL");
    if (!buf && cap) return invalid("llm_chat_format: buf is NULL but cap > 0");
    return guarded([&] {
        std::vector<llm::ChatMessage> msgs;
        for (size_t i = 0; i < n_messages; ++i) {
            if (!messages[i].role || !messages[i].content)
                llm::fail(LLM_ERR_INVALID_ARGUMENT, "chat message ", i,
                          " has a NULL role or content");
            msgs.push_back({messages[i].role, messages[i].content});
        }
        std::string text = llm::format_chat(*model->model, msgs, add_assistant != 0);
        return copy_out(text.data(), text.size(), 1, buf, cap, n_out);
    });
}

/* ---- context ---- */

llm_context_params llm_context_default_params(void) {
    llm_context_params p;
    std::memset(&p, 0, sizeof p);
    p.struct_size = sizeof p;
    p.n_ctx = 0;
    p.n_threads = 0;
    p.kv_type = LLM_KV_F32;
    p.embeddings = 0;
    return p;
}

llm_status llm_context_new(const llm_model *model, const llm_context_params *params,
                           llm_context **out) {
    if (out) *out = nullptr;
    if (!model || !out) return invalid("llm_context_new: model and out must not be NULL");
    return guarded([&] {
        llm_context_params p = read_params(params, llm_context_default_params());
        const int32_t max_ctx = model->model->config.max_seq_len;
        if (p.n_ctx < 0 || p.n_ctx > max_ctx)
            llm::fail(LLM_ERR_BAD_DIMENSIONS, "n_ctx ", p.n_ctx, " is outside 0..", max_ctx,
                      " (the model's maximum)");
        if (p.n_threads < 0 || p.n_threads > 512)
            llm::fail(LLM_ERR_INVALID_ARGUMENT, "n_threads ", p.n_threads, " is outside 0..512");
        if (p.kv_type != LLM_KV_F32 && p.kv_type != LLM_KV_F16)
            llm::fail(LLM_ERR_INVALID_ARGUMENT, "kv_type ", p.kv_type,
                      " is not LLM_KV_F32 or LLM_KV_F16");
        if (p.embeddings != 0 && p.embeddings != 1)
            llm::fail(LLM_ERR_INVALID_ARGUMENT, "embeddings ", p.embeddings, " is not 0 or 1");
        const int32_t n_ctx = p.n_ctx ? p.n_ctx : max_ctx;
        const int n_threads = p.n_threads ? p.n_threads : llm::ThreadPool::physical_cores();
        auto ctx = std::make_unique<llm_context>();
        ctx->owner = model;
        ctx->embeddings = p.embeddings != 0;
        const llm::DType kv_type = p.kv_type == LLM_KV_F16 ? llm::DType::F16 : llm::DType::F32;
        ctx->transformer =
            std::make_unique<llm::Transformer>(*model->model, n_ctx, n_threads, kv_type);
        ctx->logits.assign(static_cast<size_t>(model->model->config.vocab_size), 0.0f);
        ctx->tokens.reserve(static_cast<size_t>(n_ctx));
        ctx->stream.model = model->model.get();
        *out = ctx.release();
        return LLM_OK;
    });
}

void llm_context_free(llm_context *ctx) {
    delete ctx;
}

llm_status llm_forward(llm_context *ctx, const llm_token *tokens, size_t n_tokens) {
    if (!ctx) return invalid("llm_forward: context is NULL");
    if (!tokens && n_tokens) return invalid("llm_forward: tokens is NULL");
    if (n_tokens == 0) return invalid("llm_forward: no tokens given");
    return guarded([&] {
        const size_t pos = ctx->tokens.size();
        // (n_tokens beyond int64 cannot fit any context: it is capped to say so)
        const auto n = static_cast<int64_t>(std::min<size_t>(n_tokens, INT64_MAX));
        ctx->transformer->check_input(tokens, n, static_cast<int32_t>(pos));
        if (ctx->cancel.exchange(false)) llm::fail(LLM_ERR_CANCELLED, "cancelled");
        ctx->has_logits = false;
        // Through the model's scheduler: batched with the other contexts'
        // calls running meanwhile, a long prompt in chunks between their steps.
        llm::DecodeRequest request;
        request.transformer = ctx->transformer.get();
        request.tokens = tokens;
        request.n = n;
        request.pos0 = static_cast<int32_t>(pos);
        request.logits = ctx->logits.data();
        request.cancel = &ctx->cancel;
        int64_t done = ctx->owner->scheduler->forward(request);
        ctx->tokens.insert(ctx->tokens.end(), tokens, tokens + done);
        if (done < n) {
            ctx->cancel.store(false);
            llm::fail(LLM_ERR_CANCELLED, "cancelled after ", done, " of ", n_tokens, " tokens");
        }
        ctx->has_logits = true;
        return LLM_OK;
    });
}

int32_t llm_context_position(const llm_context *ctx) {
    return ctx ? static_cast<int32_t>(ctx->tokens.size()) : 0;
}

int32_t llm_context_n_ctx(const llm_context *ctx) {
    return ctx ? ctx->transformer->n_ctx() : 0;
}

const float *llm_context_logits(const llm_context *ctx) {
    return ctx && ctx->has_logits ? ctx->logits.data() : nullptr;
}

llm_status llm_context_copy_logits(const llm_context *ctx, float *buf, size_t cap, size_t *n_out) {
    if (n_out) *n_out = 0;
    if (!ctx) return invalid("llm_context_copy_logits: context is NULL");
    if (!buf && cap) return invalid("llm_context_copy_logits: buf is NULL but cap > 0");
    if (!ctx->has_logits)
        return invalid("llm_context_copy_logits: no logits yet (call llm_forward)");
    return guarded([&] {
        return copy_out(ctx->logits.data(), ctx->logits.size(), sizeof(float), buf, cap, n_out);
    });
}

llm_status llm_context_tokens(const llm_context *ctx, llm_token *buf, size_t cap, size_t *n_out) {
    if (n_out) *n_out = 0;
    if (!ctx) return invalid("llm_context_tokens: context is NULL");
    if (!buf && cap) return invalid("llm_context_tokens: buf is NULL but cap > 0");
    return guarded([&] {
        return copy_out(ctx->tokens.data(), ctx->tokens.size(), sizeof(llm_token), buf, cap, n_out);
    });
}

llm_status llm_context_rewind(llm_context *ctx, int32_t position) {
    if (!ctx) return invalid("llm_context_rewind: context is NULL");
    if (position < 0 || static_cast<size_t>(position) > ctx->tokens.size())
        return set_error(LLM_ERR_INVALID_ARGUMENT,
                         "llm_context_rewind: position " + std::to_string(position) +
                             " is outside 0.." + std::to_string(ctx->tokens.size()));
    ctx->tokens.resize(static_cast<size_t>(position));
    ctx->has_logits = false;
    ctx->stream.state = {};
    ctx->stream.utf8.reset();
    ctx->stream_pos = 0;
    return LLM_OK;
}

void llm_context_reset(llm_context *ctx) {
    if (!ctx) return;
    llm_context_rewind(ctx, 0);
    ctx->cancel.store(false);
}

void llm_context_cancel(llm_context *ctx) {
    if (ctx) ctx->cancel.store(true);
}

/* ---- sampler ---- */

llm_sampler_params llm_sampler_default_params(void) {
    llm_sampler_params p;
    std::memset(&p, 0, sizeof p);
    p.struct_size = sizeof p;
    p.temperature = 1.0f;
    p.top_p = 0.9f;
    p.top_k = 0;
    p.min_p = 0.0f;
    p.repeat_penalty = 1.0f;
    p.repeat_last_n = 64;
    p.seed = 0;
    return p;
}

llm_status llm_sampler_new(const llm_sampler_params *params, llm_sampler **out) {
    if (out) *out = nullptr;
    if (!out) return invalid("llm_sampler_new: out is NULL");
    return guarded([&] {
        llm_sampler_params p = read_params(params, llm_sampler_default_params());
        auto bad = [](float v) { return !(v >= 0.0f) || v > 1e30f; };
        if (bad(p.temperature)) llm::fail(LLM_ERR_INVALID_ARGUMENT, "temperature must be >= 0");
        if (bad(p.top_p) || p.top_p > 1.0f)
            llm::fail(LLM_ERR_INVALID_ARGUMENT, "top_p must be within [0, 1]");
        if (bad(p.min_p) || p.min_p > 1.0f)
            llm::fail(LLM_ERR_INVALID_ARGUMENT, "min_p must be within [0, 1]");
        if (!(p.repeat_penalty > 0.0f) || p.repeat_penalty > 1e30f)
            llm::fail(LLM_ERR_INVALID_ARGUMENT, "repeat_penalty must be > 0");
        if (p.top_k < 0) llm::fail(LLM_ERR_INVALID_ARGUMENT, "top_k must be >= 0");
        llm::SamplerConfig c;
        c.temperature = p.temperature;
        c.top_p = p.top_p;
        c.top_k = p.top_k;
        c.min_p = p.min_p;
        c.repeat_penalty = p.repeat_penalty;
        c.repeat_last_n = p.repeat_last_n;
        c.seed = p.seed;
        *out = new llm_sampler{llm::Sampler(c)};
        return LLM_OK;
    });
}

void llm_sampler_free(llm_sampler *sampler) {
    delete sampler;
}

void llm_sampler_reseed(llm_sampler *sampler, uint64_t seed) {
    if (sampler) sampler->sampler.reseed(seed);
}

llm_status llm_sample(llm_sampler *sampler, const llm_context *ctx, llm_token *out) {
    if (out) *out = LLM_TOKEN_NONE;
    if (!sampler || !ctx || !out)
        return invalid("llm_sample: sampler, ctx and out must not be NULL");
    if (!ctx->has_logits)
        return invalid("llm_sample: the context has no logits (call llm_forward)");
    return guarded([&] {
        *out = sampler->sampler.sample(ctx->logits.data(), static_cast<int32_t>(ctx->logits.size()),
                                       ctx->tokens.data(), ctx->tokens.size());
        return LLM_OK;
    });
}

/* ---- generation ---- */

size_t llm_context_step_max_bytes(const llm_context *ctx) {
    return ctx ? llm_detokenizer_max_bytes(&ctx->stream) : 0;
}

llm_status llm_context_step(llm_context *ctx, llm_sampler *sampler, llm_token *out_token,
                            int32_t *out_eog, char *buf, size_t cap, size_t *n_out) {
    if (out_token) *out_token = LLM_TOKEN_NONE;
    if (out_eog) *out_eog = 0;
    if (n_out) *n_out = 0;
    if (!ctx || !sampler || !out_token)
        return invalid("llm_context_step: ctx, sampler and out_token must not be NULL");
    if (!buf && cap) return invalid("llm_context_step: buf is NULL but cap > 0");
    const size_t need = llm_context_step_max_bytes(ctx);
    if (cap < need) {
        if (n_out) *n_out = need;
        return set_error(LLM_ERR_BUFFER_TOO_SMALL,
                         "llm_context_step needs a buffer of " + std::to_string(need) + " bytes");
    }
    std::string text;
    int32_t eog = 0;
    llm_status s = generation_step(ctx, sampler, true, out_token, &eog, text);
    if (out_eog) *out_eog = eog;
    // The text fits: the buffer holds the largest piece a step can produce.
    std::memcpy(buf, text.data(), text.size());
    if (n_out) *n_out = text.size();
    return s;
}

llm_generate_params llm_generate_default_params(void) {
    llm_generate_params p;
    std::memset(&p, 0, sizeof p);
    p.struct_size = sizeof p;
    p.max_tokens = 0;
    p.stop_at_eog = 1;
    return p;
}

llm_status llm_generate(llm_context *ctx, llm_sampler *sampler, const llm_token *prompt,
                        size_t n_prompt, const llm_generate_params *params,
                        llm_piece_callback callback, void *user_data, int32_t *n_generated) {
    if (n_generated) *n_generated = 0;
    if (!ctx || !sampler) return invalid("llm_generate: ctx and sampler must not be NULL");
    if (!prompt && n_prompt) return invalid("llm_generate: prompt is NULL");
    llm_generate_params p = llm_generate_default_params();
    llm_status s = guarded([&] {
        p = read_params(params, llm_generate_default_params());
        if (p.max_tokens < 0) llm::fail(LLM_ERR_INVALID_ARGUMENT, "max_tokens must be >= 0");
        return LLM_OK;
    });
    if (s != LLM_OK) return s;
    if (n_prompt) {
        s = llm_forward(ctx, prompt, n_prompt);
        if (s != LLM_OK) return s;
    }
    std::string text;
    for (int32_t i = 0; p.max_tokens == 0 || i < p.max_tokens; ++i) {
        llm_token t;
        int32_t eog = 0;
        text.clear();
        s = generation_step(ctx, sampler, p.stop_at_eog != 0, &t, &eog, text);
        if (eog) return LLM_OK;
        if (s != LLM_OK && s != LLM_ERR_CONTEXT_FULL) return s;
        if (n_generated) *n_generated = i + 1;
        if (callback && callback(text.data(), text.size(), t, user_data) != 0)
            return set_error(LLM_ERR_CANCELLED, "stopped by the callback");
        if (s == LLM_ERR_CONTEXT_FULL) return s;
    }
    return LLM_OK;
}

} // extern "C"

namespace llm::capi {

llm_status generation_step(llm_context *ctx, llm_sampler *sampler, bool stop_at_eog,
                           llm_token *token, int32_t *eog, std::string &text) {
    llm_status s = llm_sample(sampler, ctx, token);
    if (s != LLM_OK) return s;
    const llm_token t = *token;
    if (stop_at_eog && llm_token_is_eog(ctx->owner, t)) {
        *eog = 1;
        return LLM_OK;
    }
    // A token that does not enter the context (cancelled, or an error) must
    // leave the text stream as it was, or the next step, sampling again,
    // would decode it twice (a held-back UTF-8 lead byte would be lost).
    // CONTEXT_FULL is the exception: its token and text are returned.
    const llm_detokenizer saved_stream = ctx->stream;
    const size_t saved_pos = ctx->stream_pos;
    s = guarded([&] {
        stream_token(ctx, t, text);
        return LLM_OK;
    });
    if (s == LLM_OK) s = llm_forward(ctx, &t, 1);
    if (s == LLM_OK || s == LLM_ERR_CONTEXT_FULL) {
        ctx->stream_pos = ctx->tokens.size();
    } else {
        ctx->stream = saved_stream;
        ctx->stream_pos = saved_pos;
        text.clear();
    }
    return s;
}

} // namespace llm::capi
