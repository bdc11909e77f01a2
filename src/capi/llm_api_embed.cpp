// Embeddings: the model's final-normed hidden states, per token or pooled
// into one vector (llm.h "embeddings").
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "capi/capi_internal.h"
#include "loaders/pooling_config.h"

using namespace llm::capi;

namespace {

// The pooling a model's metadata names, or 0 when it names none libllm has.
int32_t pooling_from_metadata(const llm::Model &m) {
    const auto &meta = m.metadata;
    // GGUF: llama.cpp's enum (0 none, 1 mean, 2 cls, 3 last, 4 rank).
    const auto gguf = meta.find(m.config.arch + ".pooling_type");
    if (gguf != meta.end()) {
        if (gguf->second == "1") return LLM_POOLING_MEAN;
        if (gguf->second == "2") return LLM_POOLING_FIRST;
        if (gguf->second == "3") return LLM_POOLING_LAST;
    }
    const auto st = meta.find(llm::kPoolingMetaKey);
    if (st != meta.end()) {
        if (st->second == "mean") return LLM_POOLING_MEAN;
        if (st->second == "first") return LLM_POOLING_FIRST;
        if (st->second == "last") return LLM_POOLING_LAST;
    }
    return 0;
}

void normalize_l2(float *v, int64_t n) {
    double sum = 0.0;
    for (int64_t i = 0; i < n; ++i)
        sum += static_cast<double>(v[i]) * v[i];
    if (sum <= 0.0) return;
    const double scale = 1.0 / std::sqrt(sum);
    for (int64_t i = 0; i < n; ++i)
        v[i] = static_cast<float>(v[i] * scale);
}

// Clears the context's hidden-state output when the call ends, however.
struct HiddenOutput {
    llm::Transformer &t;
    ~HiddenOutput() { t.set_hidden_output(nullptr); }
};

} // namespace

extern "C" {

int32_t llm_model_default_pooling(const llm_model *model) {
    if (!model) return LLM_POOLING_MEAN;
    const int32_t p = pooling_from_metadata(*model->model);
    return p ? p : LLM_POOLING_MEAN;
}

llm_status llm_embed(llm_context *ctx, const llm_token *tokens, size_t n_tokens, int32_t pooling,
                     int32_t normalize, float *buf, size_t cap, size_t *n_out) {
    if (n_out) *n_out = 0;
    if (!ctx) return invalid("llm_embed: context is NULL");
    if (!tokens && n_tokens) return invalid("llm_embed: tokens is NULL");
    if (n_tokens == 0) return invalid("llm_embed: no tokens given");
    if (!buf && cap) return invalid("llm_embed: buf is NULL but cap > 0");
    if (pooling < LLM_POOLING_DEFAULT || pooling > LLM_POOLING_FIRST)
        return invalid("llm_embed: pooling is not one of LLM_POOLING_*");
    if (normalize != 0 && normalize != 1) return invalid("llm_embed: normalize is not 0 or 1");
    if (!ctx->embeddings)
        return invalid("llm_embed: the context was not created for embeddings (set "
                       "llm_context_params.embeddings = 1)");
    return guarded([&] {
        llm::Transformer &tf = *ctx->transformer;
        const int64_t dim = ctx->owner->model->config.dim;
        if (pooling == LLM_POOLING_DEFAULT) pooling = llm_model_default_pooling(ctx->owner);
        // More tokens than the context holds cannot run; capped so that the
        // size below cannot overflow before check_input says so.
        const auto n =
            static_cast<int64_t>(std::min<size_t>(n_tokens, static_cast<size_t>(tf.n_ctx()) + 1));
        const size_t need =
            pooling == LLM_POOLING_NONE ? static_cast<size_t>(n * dim) : static_cast<size_t>(dim);
        if (n_tokens <= static_cast<size_t>(tf.n_ctx()) && cap < need) {
            if (n_out) *n_out = need;
            if (!buf && cap == 0) return set_error(LLM_ERR_BUFFER_TOO_SMALL, "size query");
            return set_error(LLM_ERR_BUFFER_TOO_SMALL, "llm_embed: buffer holds " +
                                                           std::to_string(cap) + " floats but " +
                                                           std::to_string(need) + " are needed");
        }
        tf.check_input(tokens, n, 0);
        HiddenOutput guard{tf};
        try {
            if (ctx->cancel.exchange(false)) llm::fail(LLM_ERR_CANCELLED, "llm_embed: cancelled");
            llm_context_rewind(ctx, 0);
            // Chunks of the transformer's batch size: the pooled modes keep
            // one chunk of states at a time.
            const int64_t chunk = tf.max_batch();
            std::vector<float> states;
            std::vector<double> sum;
            if (pooling != LLM_POOLING_NONE) {
                states.resize(static_cast<size_t>(std::min(chunk, n) * dim));
                if (pooling == LLM_POOLING_MEAN) sum.assign(static_cast<size_t>(dim), 0.0);
            }
            for (int64_t done = 0; done < n;) {
                const int64_t b = std::min(chunk, n - done);
                float *out = pooling == LLM_POOLING_NONE ? buf + done * dim : states.data();
                tf.set_hidden_output(out);
                const int64_t ran =
                    tf.forward(tokens + done, b, static_cast<int32_t>(done), nullptr, &ctx->cancel);
                ctx->tokens.insert(ctx->tokens.end(), tokens + done, tokens + done + ran);
                if (ran < b)
                    llm::fail(LLM_ERR_CANCELLED, "llm_embed: cancelled after ", done + ran, " of ",
                              n, " tokens");
                if (pooling == LLM_POOLING_MEAN) {
                    for (int64_t t = 0; t < b; ++t)
                        for (int64_t i = 0; i < dim; ++i)
                            sum[static_cast<size_t>(i)] += out[t * dim + i];
                } else if (pooling == LLM_POOLING_FIRST && done == 0) {
                    std::copy(out, out + dim, buf);
                } else if (pooling == LLM_POOLING_LAST && done + b == n) {
                    std::copy(out + (b - 1) * dim, out + b * dim, buf);
                }
                done += b;
            }
            if (pooling == LLM_POOLING_MEAN)
                for (int64_t i = 0; i < dim; ++i)
                    buf[i] =
                        static_cast<float>(sum[static_cast<size_t>(i)] / static_cast<double>(n));
            if (normalize) {
                const int64_t rows = pooling == LLM_POOLING_NONE ? n : 1;
                for (int64_t r = 0; r < rows; ++r)
                    normalize_l2(buf + r * dim, dim);
            }
        } catch (...) {
            llm_context_reset(ctx);
            throw;
        }
        if (n_out) *n_out = need;
        return LLM_OK;
    });
}

} // extern "C"
