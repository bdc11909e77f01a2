// Batched decoding across contexts (llm.h "batched decoding", since 1.4):
// checks the C arguments, then hands the step to engine/batch_decode.h.
#include "capi/capi_internal.h"
#include "engine/batch_decode.h"

using llm::capi::guarded;
using llm::capi::invalid;
using llm::capi::set_error;

namespace {

// Every check before any state changes: NULLs, one model, no context twice,
// room and token range (messages name the index).
void check_batch(const char *fn, llm_context *const *ctxs, const llm_token *tokens, size_t n) {
    std::vector<const llm_context *> seen;
    seen.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        const llm_context *c = ctxs[i];
        if (!c) llm::fail(LLM_ERR_INVALID_ARGUMENT, fn, ": context ", i, " is NULL");
        if (c->owner != ctxs[0]->owner)
            llm::fail(LLM_ERR_INVALID_ARGUMENT, fn, ": context ", i,
                      " runs another model than context 0");
        seen.push_back(c);
    }
    std::sort(seen.begin(), seen.end());
    if (std::adjacent_find(seen.begin(), seen.end()) != seen.end())
        llm::fail(LLM_ERR_INVALID_ARGUMENT, fn, ": a context appears twice");
    if (!tokens) return;
    for (size_t i = 0; i < n; ++i) {
        try {
            ctxs[i]->transformer->check_input(&tokens[i], 1,
                                              static_cast<int32_t>(ctxs[i]->tokens.size()));
        } catch (const llm::Error &e) {
            llm::fail(e.status(), fn, ": context ", i, ": ", e.what());
        }
    }
}

// Feeds tokens[i] to ctxs[i] for each i with status[i] == LLM_OK (the
// arguments checked); the others are left alone. A context cancelled before
// or during the step gets status CANCELLED and nothing appended.
void decode_checked(llm_context *const *ctxs, const llm_token *tokens, size_t n,
                    llm_status *status) {
    std::vector<llm::BatchSeq> seqs;
    std::vector<size_t> index;
    for (size_t i = 0; i < n; ++i) {
        if (status[i] != LLM_OK) continue;
        llm_context *c = ctxs[i];
        c->tokens.reserve(c->tokens.size() + 1); // so that keeping the token cannot throw
        if (c->cancel.exchange(false)) {
            status[i] = LLM_ERR_CANCELLED; // as llm_forward: the logits stay
            continue;
        }
        llm::BatchSeq s;
        s.transformer = c->transformer.get();
        s.token = tokens[i];
        s.pos = static_cast<int32_t>(c->tokens.size());
        s.logits = c->logits.data();
        s.cancel = &c->cancel;
        seqs.push_back(s);
        index.push_back(i);
    }
    for (size_t i : index)
        ctxs[i]->has_logits = false;
    llm::BatchDecoder::decode(seqs.data(), static_cast<int64_t>(seqs.size()),
                              ctxs[0]->owner->scheduler->exact());
    for (size_t k = 0; k < seqs.size(); ++k) {
        llm_context *c = ctxs[index[k]];
        if (seqs[k].done) {
            c->tokens.push_back(seqs[k].token);
            c->has_logits = true;
        } else {
            c->cancel.store(false);
            status[index[k]] = LLM_ERR_CANCELLED;
        }
    }
}

// OK, or the first context's status that is not, with a message naming it.
llm_status summarize(const char *fn, const llm_status *status, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (status[i] != LLM_OK)
            return set_error(status[i], std::string(fn) + ": context " + std::to_string(i) + ": " +
                                            llm_status_str(status[i]));
    return LLM_OK;
}

} // namespace

extern "C" {

llm_status llm_decode_batch(llm_context *const *ctxs, const llm_token *tokens, size_t n,
                            llm_status *out_status) {
    if (out_status)
        for (size_t i = 0; i < n; ++i)
            out_status[i] = LLM_ERR_INVALID_ARGUMENT;
    if (n == 0) return invalid("llm_decode_batch: no contexts given");
    if (!ctxs || !tokens) return invalid("llm_decode_batch: ctxs and tokens must not be NULL");
    return guarded([&] {
        check_batch("llm_decode_batch", ctxs, tokens, n);
        std::vector<llm_status> status(n, LLM_OK);
        decode_checked(ctxs, tokens, n, status.data());
        if (out_status) std::copy(status.begin(), status.end(), out_status);
        return summarize("llm_decode_batch", status.data(), n);
    });
}

llm_status llm_step_batch(llm_context *const *ctxs, llm_sampler *const *samplers, size_t n,
                          llm_token *out_tokens, int32_t *out_eog, llm_status *out_status) {
    if (out_tokens)
        for (size_t i = 0; i < n; ++i)
            out_tokens[i] = LLM_TOKEN_NONE;
    if (out_eog)
        for (size_t i = 0; i < n; ++i)
            out_eog[i] = 0;
    if (out_status)
        for (size_t i = 0; i < n; ++i)
            out_status[i] = LLM_ERR_INVALID_ARGUMENT;
    if (n == 0) return invalid("llm_step_batch: no contexts given");
    if (!ctxs || !samplers || !out_tokens)
        return invalid("llm_step_batch: ctxs, samplers and out_tokens must not be NULL");
    return guarded([&] {
        check_batch("llm_step_batch", ctxs, nullptr, n);
        for (size_t i = 0; i < n; ++i) {
            if (!samplers[i])
                llm::fail(LLM_ERR_INVALID_ARGUMENT, "llm_step_batch: sampler ", i, " is NULL");
            if (!ctxs[i]->has_logits)
                llm::fail(LLM_ERR_INVALID_ARGUMENT, "llm_step_batch: context ", i,
                          " has no logits (call llm_forward)");
        }
        // run[i]: what feeding context i gave; an end-of-generation token
        // is not fed (marked skipped by a status that is not OK).
        std::vector<llm_status> run(n, LLM_OK);
        std::vector<char> eog(n, 0);
        for (size_t i = 0; i < n; ++i) {
            llm_context *c = ctxs[i];
            out_tokens[i] = samplers[i]->sampler.sample(c->logits.data(),
                                                        static_cast<int32_t>(c->logits.size()),
                                                        c->tokens.data(), c->tokens.size());
            if (llm_token_is_eog(c->owner, out_tokens[i])) {
                eog[i] = 1;
                run[i] = LLM_ERR_INVALID_ARGUMENT;
            } else if (c->tokens.size() >= static_cast<size_t>(c->transformer->n_ctx())) {
                run[i] = LLM_ERR_CONTEXT_FULL;
            }
        }
        // (sampled ids are in the vocabulary: room was all there was to check)
        decode_checked(ctxs, out_tokens, n, run.data());
        std::vector<llm_status> status(n, LLM_OK);
        for (size_t i = 0; i < n; ++i) {
            if (out_eog) out_eog[i] = eog[i];
            status[i] = eog[i] ? LLM_OK : run[i];
        }
        if (out_status) std::copy(status.begin(), status.end(), out_status);
        return summarize("llm_step_batch", status.data(), n);
    });
}

} // extern "C"
