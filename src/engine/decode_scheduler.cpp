#include "engine/decode_scheduler.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "engine/batch_decode.h"
#include "engine/transformer.h"

namespace llm {

namespace {

// How long a step waits for the last one's sequences: a quarter of that
// step's time, at most kMaxGrace. A thread usually comes back in well under
// a millisecond (sampling from 150k logits with top-p, a wake-up), but on a
// busy machine it may wait for a core; one not back by then has most likely
// left (its stream ended), and it costs the others this wait once.
constexpr int kGraceShare = 4;
constexpr auto kMaxGrace = std::chrono::milliseconds(10);

// A prompt's piece while streams wait costs about kPieceShare of their
// step, in whole register tiles of tokens (a smaller piece computes a whole
// tile anyway), at least one.
constexpr double kPieceShare = 1.0;
constexpr int64_t kPieceTile = 16;

// Whether forward() on n prompt tokens ends with a chunk of one token: that
// token goes through the decode kernels. Pieces of two or more tokens go
// through the batch kernels, which give each token the same result wherever
// a prompt is cut (tests/api/test_prefill_interleave.cpp); a one-token piece
// would not.
bool ends_single(const Transformer &t, int64_t n) {
    while (n > 1)
        n -= t.chunk_tokens(n);
    return n == 1;
}

// The next piece of prompt p: a whole chunk as forward() would cut it, or at
// most `want` tokens (> 0). Cut so that each token meets the kernels it meets
// in one forward() of the whole prompt: no piece of one token but the last
// one where forward() has it.
int64_t next_piece(const DecodeRequest &p, int64_t want) {
    const int64_t left = p.n - p.done;
    const int64_t batched = left - (ends_single(*p.transformer, p.n) ? 1 : 0);
    if (batched <= 0) return left;
    int64_t b = std::min(batched, p.transformer->chunk_tokens(batched));
    if (want > 0) b = std::min(b, want);
    if (batched - b == 1) --b; // not one token left for the batch kernels
    return b;
}

double nanoseconds(std::chrono::steady_clock::duration d) {
    return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
}

bool auto_batch_from_env() {
    const char *v = std::getenv("LLM_AUTO_BATCH");
    return !(v && std::strcmp(v, "0") == 0);
}

} // namespace

DecodeScheduler::DecodeScheduler() : enabled_(auto_batch_from_env()) {}

int64_t DecodeScheduler::forward(DecodeRequest &r) {
    if (!enabled_) return r.transformer->forward(r.tokens, r.n, r.pos0, r.logits, r.cancel);
    std::unique_lock<std::mutex> lock(mutex_);
    r.done = 0;
    r.error = nullptr;
    r.finished = false;
    r.lead = !running_; // nothing running: this thread runs a step at once
    running_ = true;
    queue_.push_back(&r);
    for (auto it = expected_.begin(); it != expected_.end(); ++it)
        if (*it == r.transformer) {
            expected_.erase(it);
            if (expected_.empty()) all_back_.notify_one();
            break;
        }
    for (;;) {
        r.wake.wait(lock, [&] { return r.finished || r.lead; });
        if (!r.lead) break;
        r.lead = false;
        const bool streams = gather(lock);
        run_step(lock, r, streams);
        if (r.finished) break;
    }
    if (r.error) std::rethrow_exception(r.error);
    return r.done;
}

DecodeScheduler::Stats DecodeScheduler::stats() {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
}

bool DecodeScheduler::gather(std::unique_lock<std::mutex> &lock) {
    if (expected_.empty()) return false;
    all_back_.wait_until(lock, released_ + grace_, [&] { return expected_.empty(); });
    expected_.clear(); // those not back have left: the next steps do not wait for them
    return true;
}

void DecodeScheduler::finish(DecodeRequest &r) {
    for (auto it = queue_.begin(); it != queue_.end(); ++it)
        if (*it == &r) {
            queue_.erase(it);
            break;
        }
    r.finished = true;
    r.wake.notify_one(); // under the lock: r (on its thread's stack) is alive
}

int64_t DecodeScheduler::piece_within(double budget_ns) const {
    if (piece_ns_per_token_ <= 0) return kPieceTile; // unknown: the least
    const auto tokens = static_cast<int64_t>(budget_ns / piece_ns_per_token_);
    return std::max(kPieceTile, tokens / kPieceTile * kPieceTile);
}

void DecodeScheduler::run_step(std::unique_lock<std::mutex> &lock, const DecodeRequest &self,
                               bool streams) {
    // The step: every queued single-token decode (up to what one pass of the
    // first one's scratch holds), and the next chunk of the first queued
    // prompt. The decodes leave the queue now; the prompt stays (first in
    // line) until its last chunk, so the steps alternate between the
    // streams' tokens and its chunks.
    std::vector<DecodeRequest *> rows;
    DecodeRequest *prompt = nullptr;
    int64_t cap = 0;
    for (auto it = queue_.begin(); it != queue_.end();) {
        DecodeRequest *q = *it;
        if (q->n > 1) {
            if (!prompt) prompt = q;
            ++it;
        } else if (rows.empty() || static_cast<int64_t>(rows.size()) < cap) {
            if (rows.empty()) cap = q->transformer->max_batch();
            rows.push_back(q);
            it = queue_.erase(it);
        } else {
            ++it;
        }
    }
    // BatchDecoder computes on the first row's pool: the last step's if it is
    // here, else the leader's own.
    for (const Transformer *pick :
         {last_pool_, static_cast<const Transformer *>(self.transformer)}) {
        auto it = std::find_if(rows.begin(), rows.end(),
                               [&](const DecodeRequest *q) { return q->transformer == pick; });
        if (it != rows.end()) {
            std::iter_swap(rows.begin(), it);
            break;
        }
    }
    if (!rows.empty()) last_pool_ = rows[0]->transformer;
    ++stats_.steps;
    stats_.rows += static_cast<int64_t>(rows.size());
    stats_.chunks += prompt != nullptr;
    lock.unlock();

    const Clock::time_point start = Clock::now();
    std::exception_ptr rows_error;
    std::vector<BatchSeq> seqs(rows.size());
    if (rows.size() == 1) {
        // Alone: the single-sequence path, as without a scheduler.
        DecodeRequest &q = *rows[0];
        try {
            seqs[0].done = q.transformer->forward(q.tokens, 1, q.pos0, q.logits, q.cancel) == 1;
        } catch (...) {
            rows_error = std::current_exception();
        }
    } else if (!rows.empty()) {
        for (size_t i = 0; i < rows.size(); ++i) {
            BatchSeq &s = seqs[i];
            s.transformer = rows[i]->transformer;
            s.token = rows[i]->tokens[0];
            s.pos = rows[i]->pos0;
            s.logits = rows[i]->logits;
            s.cancel = rows[i]->cancel;
        }
        try {
            BatchDecoder::decode(seqs.data(), static_cast<int64_t>(seqs.size()), exact_);
        } catch (...) {
            rows_error = std::current_exception();
        }
    }
    if (!rows.empty()) {
        // Their threads come back with their next tokens: the next step waits
        // for them, a share of this one's time at most.
        const Clock::time_point end = Clock::now();
        lock.lock();
        decode_time_ = end - start;
        released_ = end;
        grace_ = std::min<Clock::duration>((end - start) / kGraceShare, kMaxGrace);
        for (size_t i = 0; i < rows.size(); ++i) {
            rows[i]->done = !rows_error && seqs[i].done ? 1 : 0;
            rows[i]->error = rows_error;
            if (rows[i]->done) expected_.push_back(rows[i]->transformer);
            rows[i]->finished = true;
            rows[i]->wake.notify_one();
        }
        lock.unlock();
    }

    // The prompt's chunk runs after the decodes' threads are woken: they
    // sample their next tokens meanwhile and queue for the next step.
    if (prompt) {
        DecodeRequest &p = *prompt;
        const int64_t left = p.n - p.done;
        // Streams decode beside it (in this step, or late for it: back
        // during this piece): a piece of about their step's time.
        streams = streams || !rows.empty();
        int64_t b = left;
        if (chunked_) {
            lock.lock();
            b = next_piece(p, streams ? piece_within(nanoseconds(decode_time_) * kPieceShare) : 0);
            lock.unlock();
        }
        const bool cancelled = p.cancel && p.cancel->load(std::memory_order_relaxed);
        int64_t ran = 0;
        std::exception_ptr error;
        const Clock::time_point piece_start = Clock::now();
        if (!cancelled) {
            try {
                ran = p.transformer->forward(p.tokens + p.done, b,
                                             p.pos0 + static_cast<int32_t>(p.done),
                                             b == left ? p.logits : nullptr, p.cancel);
            } catch (...) {
                error = std::current_exception();
            }
        }
        const Clock::duration piece_time = Clock::now() - piece_start;
        lock.lock();
        if (streams && chunked_ && ran == b && b < left) {
            // (the last piece also computes the logits: not a prompt piece's time)
            const double sample = nanoseconds(piece_time) / static_cast<double>(b);
            piece_ns_per_token_ =
                piece_ns_per_token_ > 0 ? (piece_ns_per_token_ + sample) / 2 : sample;
        }
        p.done += ran;
        p.error = error;
        if (p.done == p.n && expected_.empty()) {
            // Its thread will most likely decode next (a short wait, as above).
            released_ = Clock::now();
            grace_ = std::min<Clock::duration>((released_ - start) / kGraceShare, kMaxGrace);
        }
        if (p.done == p.n) expected_.push_back(p.transformer);
        if (error || ran < b || p.done == p.n) finish(p);
    } else {
        lock.lock();
    }

    // The next step's leader: the first in line, or nobody.
    if (queue_.empty()) {
        running_ = false;
    } else {
        queue_.front()->lead = true;
        queue_.front()->wake.notify_one();
    }
}

} // namespace llm
