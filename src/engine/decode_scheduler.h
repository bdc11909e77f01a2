// Gathers the forward passes that many threads run at once on contexts of one
// model into shared steps: their single-token decodes go through the layers
// together (BatchDecoder: one pass over the weights for all of them, results
// those of each alone within float rounding, bit for bit when exact()), and
// a long prompt goes in chunks, one per step, so the streams decoding beside
// it keep getting tokens. While streams decode, a chunk is cut to cost
// about one of their steps (their step time then about doubles, instead of
// waiting for a whole 128-token chunk); when nobody else is running,
// chunks are whole.
//
// There is no scheduler thread. A caller whose model has no step running
// runs one (alone: the plain single-sequence path, at no extra cost);
// callers that arrive meanwhile queue, and when the step ends, the first of
// them leads the next one, taking every queued request. Each caller's thread
// only waits for steps that include it.
//
// One wait keeps the streams together: the sequences of the last step are
// expected back (their threads are sampling their next tokens), and a step
// starts once they all are, or after a grace of a quarter of the last
// step's time (at most 10 ms) for those that have left. Without it the
// first thread back would start a step of its own at once, and the streams
// would split into groups taking turns, each step reading all the weights.
// A lone caller expects only itself: it never waits.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <vector>

#include "engine/batch_decode.h"

namespace llm {

class Transformer;

// One caller's forward pass: `n` tokens at positions pos0.. of `transformer`,
// the last one's logits to `logits` (null: none), as Transformer::forward.
struct DecodeRequest {
    Transformer *transformer = nullptr;
    const int32_t *tokens = nullptr;
    int64_t n = 0;
    int32_t pos0 = 0;
    float *logits = nullptr;
    const std::atomic<bool> *cancel = nullptr; // may be null

    // Set by the scheduler (under its lock).
    int64_t done = 0; // tokens that entered the cache so far
    std::exception_ptr error;
    bool finished = false;
    bool lead = false; // this request's thread runs the next step
    std::condition_variable wake;
};

class DecodeScheduler {
  public:
    // Gathering is on unless LLM_AUTO_BATCH=0 is in the environment.
    DecodeScheduler();
    // chunked_prefill = false runs a prompt as one step, however long (for
    // measuring what the chunks buy: the streams beside it then stall).
    explicit DecodeScheduler(bool enabled, bool chunked_prefill = true)
        : enabled_(enabled), chunked_(chunked_prefill) {}
    DecodeScheduler(const DecodeScheduler &) = delete;
    DecodeScheduler &operator=(const DecodeScheduler &) = delete;

    // Runs the request, possibly in steps shared with other threads' requests
    // on transformers of the same model, and returns how many tokens entered
    // the cache: fewer than n only if its cancel flag was raised. The inputs
    // must be valid (Transformer::check_input) and the transformer used by
    // nobody else meanwhile; an engine error of its step is rethrown here.
    int64_t forward(DecodeRequest &request);

    bool enabled() const { return enabled_; }
    // LLM_BATCH_EXACT=1 in the environment at construction: shared steps
    // keep each row's lone-decode arithmetic (BatchDecoder::decode's exact).
    bool exact() const { return exact_; }

    // Counts since construction: steps run, single-token decodes they held
    // (rows / steps is how many sequences a step gathered on average), and
    // prompt chunks.
    struct Stats {
        int64_t steps = 0, rows = 0, chunks = 0;
    };
    Stats stats();

  private:
    using Clock = std::chrono::steady_clock;

    // Waits (lock held, released while waiting) until the last step's
    // sequences are queued again, or their grace is over. False if there
    // were none to wait for.
    bool gather(std::unique_lock<std::mutex> &lock);
    // Runs one step from the queue for the leader `self`; the lock is held
    // on entry and exit. `streams`: gather waited for decoding sequences.
    void run_step(std::unique_lock<std::mutex> &lock, const DecodeRequest &self, bool streams);
    // Marks r finished and wakes its thread (lock held).
    void finish(DecodeRequest &r);
    // How many prompt tokens a piece may hold to take about `budget_ns`, by
    // the last pieces' time per token (lock held).
    int64_t piece_within(double budget_ns) const;

    const bool enabled_;
    const bool chunked_ = true;
    const bool exact_ = batch_exact_from_env();
    std::mutex mutex_;
    // Requests not yet finished, in arrival order (the leader's own
    // included while it runs: a prompt stays here between its chunks).
    std::deque<DecodeRequest *> queue_;
    bool running_ = false; // a leader exists (running a step or about to)
    // The last step's sequences not queued since (gather waits for them),
    // when they were released, and how long they are waited for.
    std::vector<const Transformer *> expected_;
    Clock::time_point released_;
    Clock::duration grace_{};
    std::condition_variable all_back_; // expected_ became empty
    // Whose thread pool computed the last step: the next uses it again if it
    // can (its workers may still be awake).
    const Transformer *last_pool_ = nullptr;
    // The last step of single-token decodes took this long; nanoseconds per
    // token of the last prompt pieces cut beside such steps (a running mean;
    // 0: none yet).
    Clock::duration decode_time_{};
    double piece_ns_per_token_ = 0;
    Stats stats_;
};

} // namespace llm
