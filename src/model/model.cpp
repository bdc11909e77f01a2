#include "model/model.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "common/error.h"
#include "tokenizer/tokenizer.h"

namespace llm {

float ModelConfig::attention_scores_scale() const {
    return attention_scale > 0.0f ? attention_scale
                                  : 1.0f / std::sqrt(static_cast<float>(head_dim));
}

Model::~Model() = default;

uint8_t *Model::allocate(size_t bytes) {
    try {
        owned.emplace_back(new uint8_t[bytes]());
    } catch (const std::bad_alloc &) {
        fail(LLM_ERR_OUT_OF_MEMORY, "cannot allocate ", bytes, " bytes for model weights");
    }
    return owned.back().get();
}

namespace {
template <typename F> void for_each_matrix(const ModelWeights &w, F f) {
    f(w.token_embedding);
    for (const auto &l : w.layers)
        for (const Matrix *m : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down})
            f(*m);
    if (w.classifier.data != w.token_embedding.data) f(w.classifier);
}
template <typename F> void for_each_vector(const ModelWeights &w, F f) {
    for (const auto &l : w.layers)
        for (const Vector *v : {&l.attn_norm, &l.ffn_norm, &l.bq, &l.bk, &l.bv, &l.q_norm,
                                &l.k_norm, &l.post_attn_norm, &l.post_ffn_norm})
            f(*v);
    f(w.final_norm);
}
} // namespace

int64_t Model::n_params() const {
    int64_t n = 0;
    for_each_matrix(weights, [&](const Matrix &m) { n += m.rows * m.cols; });
    for_each_vector(weights, [&](const Vector &v) { n += v.n; });
    return n;
}

int64_t Model::weight_bytes() const {
    int64_t n = 0;
    for_each_matrix(weights, [&](const Matrix &m) { n += static_cast<int64_t>(m.bytes()); });
    for_each_vector(weights, [&](const Vector &v) { n += v.n * 4; });
    return n;
}

namespace {
void expect_matrix(const Matrix &m, int64_t rows, int64_t cols, const std::string &name) {
    if (m.empty()) fail(LLM_ERR_FORMAT, "missing weight ", name);
    if (m.rows != rows || m.cols != cols)
        fail(LLM_ERR_BAD_DIMENSIONS, "weight ", name, " is ", m.rows, "x", m.cols, ", expected ",
             rows, "x", cols);
}
void expect_vector(const Vector &v, int64_t n, const std::string &name) {
    if (v.empty()) fail(LLM_ERR_FORMAT, "missing weight ", name);
    if (v.n != n)
        fail(LLM_ERR_BAD_DIMENSIONS, "weight ", name, " has ", v.n, " values, expected ", n);
}
} // namespace

void check_dimension(const std::string &where, const char *name, int64_t value, int64_t max) {
    if (value <= 0 || value > max)
        fail(LLM_ERR_BAD_DIMENSIONS, where, ": ", name, " = ", value, " is outside 1..", max);
}

void validate_weights(const Model &model) {
    const ModelConfig &c = model.config;
    if (c.dim <= 0 || c.hidden_dim <= 0 || c.n_layers <= 0 || c.n_heads <= 0 || c.n_kv_heads <= 0 ||
        c.head_dim <= 0 || c.vocab_size <= 0 || c.max_seq_len <= 0)
        fail(LLM_ERR_BAD_DIMENSIONS, "model dimensions must be positive");
    if (c.n_heads % c.n_kv_heads != 0)
        fail(LLM_ERR_BAD_DIMENSIONS, "n_heads ", c.n_heads, " is not a multiple of n_kv_heads ",
             c.n_kv_heads);
    if (c.head_dim % 2 != 0) fail(LLM_ERR_BAD_DIMENSIONS, "head_dim ", c.head_dim, " is odd");
    if (!(c.norm_eps > 0.0f) || !(c.rope_theta > 0.0f))
        fail(LLM_ERR_BAD_DIMENSIONS, "rms_norm_eps and rope_theta must be positive");
    if (!c.rope_freq_divisors.empty()) {
        if (c.rope_freq_divisors.size() != static_cast<size_t>(c.head_dim / 2))
            fail(LLM_ERR_BAD_DIMENSIONS, "RoPE has ", c.rope_freq_divisors.size(),
                 " frequency divisors, expected head_dim / 2 = ", c.head_dim / 2);
        for (float d : c.rope_freq_divisors)
            if (!(d > 0.0f && d < 1e30f))
                fail(LLM_ERR_BAD_DIMENSIONS, "RoPE frequency divisor ", d,
                     " is not a positive number");
    }
    if (!(c.embedding_scale > 0.0f && c.embedding_scale < 1e30f))
        fail(LLM_ERR_BAD_DIMENSIONS, "embedding scale ", c.embedding_scale,
             " is not a positive number");
    if (!(c.attention_scale >= 0.0f && c.attention_scale < 1e30f))
        fail(LLM_ERR_BAD_DIMENSIONS, "attention scale ", c.attention_scale,
             " is not a positive number (or 0: 1/sqrt(head_dim))");
    if (!c.layer_attention.empty()) {
        if (c.layer_attention.size() != static_cast<size_t>(c.n_layers))
            fail(LLM_ERR_BAD_DIMENSIONS, "attention is described for ", c.layer_attention.size(),
                 " layers, the model has ", c.n_layers);
        for (size_t i = 0; i < c.layer_attention.size(); ++i) {
            const LayerAttention &a = c.layer_attention[i];
            if (a.window < 0)
                fail(LLM_ERR_BAD_DIMENSIONS, "layer ", i, ": attention window ", a.window,
                     " is negative");
            if (!(a.rope_theta >= 0.0f && a.rope_theta < 1e30f))
                fail(LLM_ERR_BAD_DIMENSIONS, "layer ", i, ": rope theta ", a.rope_theta,
                     " is not a positive number");
        }
    }
    const ModelWeights &w = model.weights;
    expect_matrix(w.token_embedding, c.vocab_size, c.dim, "token_embedding");
    expect_matrix(w.classifier, c.vocab_size, c.dim, "classifier");
    expect_vector(w.final_norm, c.dim, "final_norm");
    if (w.layers.size() != static_cast<size_t>(c.n_layers))
        fail(LLM_ERR_FORMAT, "model has ", w.layers.size(), " layers, config says ", c.n_layers);
    for (size_t i = 0; i < w.layers.size(); ++i) {
        const LayerWeights &l = w.layers[i];
        std::string p = "layers." + std::to_string(i) + ".";
        expect_vector(l.attn_norm, c.dim, p + "attn_norm");
        expect_matrix(l.wq, c.q_dim(), c.dim, p + "wq");
        expect_matrix(l.wk, c.kv_dim(), c.dim, p + "wk");
        expect_matrix(l.wv, c.kv_dim(), c.dim, p + "wv");
        expect_matrix(l.wo, c.dim, c.q_dim(), p + "wo");
        expect_vector(l.ffn_norm, c.dim, p + "ffn_norm");
        expect_matrix(l.w_gate, c.hidden_dim, c.dim, p + "w_gate");
        expect_matrix(l.w_up, c.hidden_dim, c.dim, p + "w_up");
        expect_matrix(l.w_down, c.dim, c.hidden_dim, p + "w_down");
        if (c.post_norms) {
            expect_vector(l.post_attn_norm, c.dim, p + "post_attn_norm");
            expect_vector(l.post_ffn_norm, c.dim, p + "post_ffn_norm");
        }
        if (c.qk_norm) {
            expect_vector(l.q_norm, c.head_dim, p + "q_norm");
            expect_vector(l.k_norm, c.head_dim, p + "k_norm");
        }
        if (c.qkv_bias) {
            expect_vector(l.bq, c.q_dim(), p + "bq");
            expect_vector(l.bk, c.kv_dim(), p + "bk");
            expect_vector(l.bv, c.kv_dim(), p + "bv");
        }
    }
    for (int32_t t : model.eog_tokens)
        if (t < 0 || t >= c.vocab_size)
            fail(LLM_ERR_TOKENIZER_MISMATCH, "end-of-generation token ", t,
                 " is outside the vocabulary");
}

void validate_model(const Model &model) {
    validate_weights(model);
    if (!model.tokenizer) fail(LLM_ERR_FORMAT, "model has no tokenizer");
    // Entries past the model's rows are accepted as special tokens only:
    // Gemma 3's tokenizer.json holds <image_soft_token> at 262144, one past
    // the text models' 262144 rows. Text never encodes to them, and the
    // engine refuses them as input (TOKEN_OUT_OF_RANGE).
    const Tokenizer &tok = *model.tokenizer;
    for (int32_t id = model.config.vocab_size; id < tok.vocab_size(); ++id)
        if (!tok.is_special(id))
            fail(LLM_ERR_TOKENIZER_MISMATCH, "tokenizer has ", tok.vocab_size(),
                 " tokens but the model only ", model.config.vocab_size, " (token ", id,
                 " is not a special token)");
}

} // namespace llm
