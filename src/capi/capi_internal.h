// What the C ABI's files share: the opaque handles' definitions and the
// helpers that check arguments and turn exceptions into statuses. Only
// src/capi/*.cpp include this.
#pragma once

#include "llm.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "common/error.h"
#include "engine/decode_scheduler.h"
#include "engine/transformer.h"
#include "grammar/grammar_cache.h"
#include "grammar/token_trie.h"
#include "sampler/sampler.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/utf8_stream.h"

struct llm_model {
    std::unique_ptr<llm::Model> model;
    // Gathers the forward passes of this model's contexts that run at once
    // (llm_forward, hence llm_context_step and llm_generate) into batched
    // steps.
    std::unique_ptr<llm::DecodeScheduler> scheduler = std::make_unique<llm::DecodeScheduler>();
    // The grammars of llm_sampler_set_grammar / _set_json_schema on this
    // model, and its token trie (made at the first of them), shared by all
    // its samplers and freed with the model (a sampler keeps what it uses).
    mutable llm::grammar::GrammarCache grammars;
    mutable std::mutex trie_mutex;
    mutable std::shared_ptr<const llm::grammar::TokenTrie> trie;
};

struct llm_detokenizer {
    const llm::Model *model;
    llm::DecodeState state;
    llm::Utf8Stream utf8;
    std::string scratch;
};

struct llm_context {
    const llm_model *owner;
    std::unique_ptr<llm::Transformer> transformer;
    std::vector<float> logits;
    bool has_logits = false;
    std::vector<llm_token> tokens; // what is in the cache, in order
    std::atomic<bool> cancel{false};
    llm_detokenizer stream; // used by llm_context_step
    size_t stream_pos = 0;  // how many of `tokens` the stream's state has seen
    // llm_embed is allowed (llm_context_params.embeddings).
    bool embeddings = false;
};

struct llm_sampler {
    llm::Sampler sampler;
};

namespace llm::capi {

// Records the thread's last error message and returns status.
llm_status set_error(llm_status status, const std::string &message);

// Runs f, mapping exceptions to statuses. f returns llm_status.
template <typename F> llm_status guarded(F &&f) noexcept {
    try {
        return f();
    } catch (const llm::Error &e) {
        return set_error(e.status(), e.what());
    } catch (const std::bad_alloc &) {
        return set_error(LLM_ERR_OUT_OF_MEMORY, "out of memory");
    } catch (const std::exception &e) {
        return set_error(LLM_ERR_INTERNAL, std::string("internal error: ") + e.what());
    } catch (...) {
        return set_error(LLM_ERR_INTERNAL, "internal error: unknown exception");
    }
}

inline llm_status invalid(const char *what) {
    return set_error(LLM_ERR_INVALID_ARGUMENT, what);
}

// Copies bytes into a caller buffer with the (buf, cap, &needed) convention.
inline llm_status copy_out(const void *src, size_t n, size_t elem, void *buf, size_t cap,
                           size_t *n_out) {
    if (n_out) *n_out = n;
    if (n > cap) {
        if (buf == nullptr && cap == 0) return set_error(LLM_ERR_BUFFER_TOO_SMALL, "size query");
        return set_error(LLM_ERR_BUFFER_TOO_SMALL, "buffer holds " + std::to_string(cap) + " but " +
                                                       std::to_string(n) + " are needed");
    }
    if (n) std::memcpy(buf, src, n * elem);
    return LLM_OK;
}

// Reads a params struct the caller may have compiled against an older,
// shorter version: only the fields inside struct_size are taken.
template <typename P> P read_params(const P *given, P defaults) {
    if (!given) return defaults;
    if (given->struct_size < sizeof(uint32_t) || given->struct_size > 4096)
        llm::fail(LLM_ERR_INVALID_ARGUMENT, "params struct_size ", given->struct_size,
                  " is invalid: initialise params with the *_default_params() function");
    P out = defaults;
    std::memcpy(&out, given, std::min<size_t>(given->struct_size, sizeof(P)));
    out.struct_size = sizeof(P);
    return out;
}

// Ids are checked against the model's vocabulary (its embedding rows). A
// tokenizer may know fewer (padding rows): those decode to nothing.
inline void check_token(const llm::Model &m, llm_token t) {
    if (t < 0 || t >= m.config.vocab_size)
        llm::fail(LLM_ERR_TOKEN_OUT_OF_RANGE, "token id ", t, " is outside [0, ",
                  m.config.vocab_size, ")");
}

inline void detok_push(llm_detokenizer &d, llm_token t, std::string &out) {
    d.scratch.clear();
    d.model->tokenizer->decode_append(d.state, t, false, d.scratch);
    d.utf8.push(d.scratch, out);
}

// Decodes a generated token through the context's stream. Tokens that entered
// the context some other way (a prompt) first update the decoding state, so
// context rules such as "no space after BOS" see them; their text is not
// returned (the caller has it already).
inline void stream_token(llm_context *ctx, llm_token t, std::string &out) {
    llm_detokenizer &d = ctx->stream;
    for (; ctx->stream_pos < ctx->tokens.size(); ++ctx->stream_pos) {
        d.scratch.clear();
        d.model->tokenizer->decode_append(d.state, ctx->tokens[ctx->stream_pos], false, d.scratch);
    }
    detok_push(d, t, out);
}

// One generation step, shared by llm_context_step and llm_generate: sample,
// decode the token through the context's stream, feed it back. An
// end-of-generation token is, if stop_at_eog, reported in *eog and not fed.
llm_status generation_step(llm_context *ctx, llm_sampler *sampler, bool stop_at_eog,
                           llm_token *token, int32_t *eog, std::string &text);

} // namespace llm::capi
