#include "engine/batch_decode.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "common/error.h"
#include "engine/transformer.h"
#include "kernels/kernels.h"
#include "kernels/thread_pool.h"

namespace llm {

namespace {

bool cancelled(const BatchSeq &s) {
    return s.cancel && s.cancel->load(std::memory_order_relaxed);
}

} // namespace

bool batch_exact_from_env() {
    const char *v = std::getenv("LLM_BATCH_EXACT");
    return v && std::strcmp(v, "1") == 0;
}

// Row t's query heads against sequence t's cache, at its own position. The
// jobs are (row, block of heads): with fewer rows than threads, each row's
// heads are split so every thread has work.
void Transformer::attention_rows(int32_t layer, int64_t n) {
    const int64_t hd = cfg_.head_dim, heads = cfg_.n_heads, q_dim = cfg_.q_dim();
    const int64_t group = cfg_.n_heads / cfg_.n_kv_heads;
    const float scale = cfg_.attention_scores_scale();
    const int64_t window = cfg_.window(layer);
    ThreadPool *pool = pool_.get();
    const int64_t threads = pool->size();
    const int64_t splits = std::min(heads, (threads + n - 1) / n);
    const int64_t block = (heads + splits - 1) / splits;
    const int64_t blocks = (heads + block - 1) / block;
    const int64_t per_thread = static_cast<int64_t>(row_scores_.size()) / threads;
    pool->parallel_for(n * blocks, 1, [&](int64_t begin, int64_t end, int thread) {
        float *att = &row_scores_[static_cast<size_t>(thread * per_thread)];
        for (int64_t job = begin; job < end; ++job) {
            const int64_t t = job / blocks, h0 = (job % blocks) * block;
            const KVCache &cache = *row_cache_[t];
            const int64_t pos = row_pos_[t];
            const int64_t first = window > 0 ? std::max<int64_t>(0, pos - window + 1) : 0;
            attention_heads(cache.type(), &q_[t * q_dim + h0 * hd], cache.keys(layer),
                            cache.values(layer), cache.head_stride(), pos + 1 - first, hd, h0,
                            std::min(block, heads - h0), group, scale, att,
                            &att_out_[t * q_dim + h0 * hd], first);
        }
    });
}

void BatchDecoder::decode(BatchSeq *seqs, int64_t n, bool exact) {
    if (n <= 0) return;
    Transformer &lead = *seqs[0].transformer;
    const ModelConfig &cfg = lead.cfg_;
    std::vector<Transformer *> distinct;
    int32_t widest_ctx = 0;
    for (int64_t i = 0; i < n; ++i) {
        Transformer *t = seqs[i].transformer;
        if (&t->model_ != &lead.model_)
            fail(LLM_ERR_INVALID_ARGUMENT, "sequence ", i, " runs another model than sequence 0");
        try {
            t->check_input(&seqs[i].token, 1, seqs[i].pos);
        } catch (const Error &e) {
            fail(e.status(), "sequence ", i, ": ", e.what());
        }
        distinct.push_back(t);
        widest_ctx = std::max(widest_ctx, t->n_ctx());
        seqs[i].done = false;
    }
    std::sort(distinct.begin(), distinct.end());
    if (std::adjacent_find(distinct.begin(), distinct.end()) != distinct.end())
        fail(LLM_ERR_INVALID_ARGUMENT, "a sequence appears twice in one step");

    const int64_t dim = cfg.dim, vocab = cfg.vocab_size;
    const int64_t chunk = std::min(n, lead.max_batch());
    std::vector<int32_t> pos(static_cast<size_t>(chunk));
    std::vector<KVCache *> caches(static_cast<size_t>(chunk));
    try {
        lead.ensure_batch(chunk);
        lead.row_scores_.resize(static_cast<size_t>(lead.pool_->size()) *
                                static_cast<size_t>(cfg.n_heads) * static_cast<size_t>(widest_ctx));
        lead.row_logits_.resize(static_cast<size_t>(chunk * vocab));
    } catch (const std::bad_alloc &) {
        fail(LLM_ERR_OUT_OF_MEMORY, "cannot allocate a decode step of ", chunk, " sequences");
    }
    struct Restore {
        Transformer &t;
        ~Restore() {
            t.row_pos_ = nullptr;
            t.row_cache_ = nullptr;
            t.exact_rows_ = false;
        }
    } restore{lead};
    lead.exact_rows_ = exact;

    const size_t tables = lead.rope_thetas_.size();
    const float *divisors =
        cfg.rope_freq_divisors.empty() ? nullptr : cfg.rope_freq_divisors.data();
    for (int64_t at = 0; at < n; at += chunk) {
        // The chunk's rows still running; a cancelled one is compacted out
        // (the rows after it move up), so it costs nothing from then on.
        std::vector<BatchSeq *> live;
        for (int64_t i = at; i < std::min(n, at + chunk); ++i)
            live.push_back(&seqs[i]);
        for (size_t r = 0; r < live.size(); ++r) {
            const BatchSeq &s = *live[r];
            float *x = &lead.x_[r * dim];
            matrix_row_f32(lead.model_.weights.token_embedding, s.token, x);
            if (cfg.embedding_scale != 1.0f)
                for (int64_t i = 0; i < dim; ++i)
                    x[i] *= cfg.embedding_scale;
            for (size_t k = 0; k < tables; ++k)
                rope_angles(&lead.rope_cs_[(r * tables + k) * cfg.head_dim], cfg.head_dim, s.pos,
                            lead.rope_thetas_[k], divisors);
        }
        for (int32_t l = 0; l < cfg.n_layers && !live.empty(); ++l) {
            for (size_t r = 0; r < live.size();) {
                if (!cancelled(*live[r])) {
                    ++r;
                    continue;
                }
                // Move the last rows up by one: x and RoPE angles.
                for (size_t m = r + 1; m < live.size(); ++m) {
                    std::copy_n(&lead.x_[m * dim], dim, &lead.x_[(m - 1) * dim]);
                    std::copy_n(&lead.rope_cs_[m * tables * cfg.head_dim], tables * cfg.head_dim,
                                &lead.rope_cs_[(m - 1) * tables * cfg.head_dim]);
                }
                live.erase(live.begin() + static_cast<std::ptrdiff_t>(r));
            }
            if (live.empty()) break;
            for (size_t r = 0; r < live.size(); ++r) {
                pos[r] = live[r]->pos;
                caches[r] = &live[r]->transformer->cache_;
            }
            lead.row_pos_ = pos.data();
            lead.row_cache_ = caches.data();
            const int64_t rows = static_cast<int64_t>(live.size());
            lead.attention_block(l, rows, 0);
            lead.ffn_block(l, rows);
        }
        if (live.empty()) continue;
        const int64_t rows = static_cast<int64_t>(live.size());
        ThreadPool *pool = lead.pool_.get();
        pool->parallel_for(rows, 1, [&](int64_t r0, int64_t r1, int) {
            for (int64_t r = r0; r < r1; ++r) {
                float *x = &lead.x_[r * dim];
                rmsnorm(x, x, lead.model_.weights.final_norm.data, dim, cfg.norm_eps);
            }
        });
        {
            const Matrix &classifier = lead.model_.weights.classifier;
            StageTimer timer(lead.profile_, ForwardProfile::Classifier,
                             static_cast<double>(classifier.bytes()));
            const MatmulOut out{&classifier, lead.row_logits_.data()};
            lead.products(&out, 1, lead.x_.data(), rows);
        }
        for (int64_t r = 0; r < rows; ++r) {
            std::copy_n(&lead.row_logits_[static_cast<size_t>(r * vocab)], vocab, live[r]->logits);
            live[r]->done = true;
        }
    }
}

} // namespace llm
