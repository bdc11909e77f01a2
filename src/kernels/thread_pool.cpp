#include "kernels/thread_pool.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <string>
#include <utility>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace llm {

namespace {

// About 50-100 microseconds of polling before a thread goes to sleep.
constexpr int kSpinIterations = 2000;
// Guided chunks: each claim takes 1 / (kGuidedShare * threads) of what is
// left, rounded up to whole grains. The first chunks are long sequential
// streams (a quarter of a matrix's rows with two threads), the last ones
// a single grain, so a thread that finishes early waits at most about one
// grain's work for the others. Fixed chunks of 1/8 (4 per thread) left the
// other thread waiting up to a whole chunk at the end of every matrix.
constexpr int64_t kGuidedShare = 2;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

// Polls cond() for a while; false if it never became true.
template <typename Cond> bool spin_until(Cond cond) {
    for (int i = 0; i < kSpinIterations; ++i) {
        if (cond()) return true;
        cpu_relax();
    }
    return cond();
}

} // namespace

ThreadPool::ThreadPool(int n_threads) : n_threads_(std::max(1, n_threads)) {
    for (int i = 1; i < n_threads_; ++i)
        workers_.emplace_back(&ThreadPool::worker, this, i);
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        stop_.store(true);
    }
    wake_.notify_all();
    for (auto &t : workers_)
        t.join();
}

void ThreadPool::run_chunks(uint64_t generation, int index) {
    const uint64_t tag = (generation & 0xffffffffu) << 32;
    uint64_t t = ticket_.load(std::memory_order_acquire);
    for (;;) {
        if ((t & ~0xffffffffull) != tag) return; // a newer job
        // acquire: having seen a new job's fields, the claim below also sees
        // the closed ticket that preceded them (see parallel_for).
        const int64_t n = job_n_.load(std::memory_order_acquire);
        const int64_t grain = job_grain_.load(std::memory_order_acquire);
        const int64_t begin = static_cast<int64_t>(t & 0xffffffffu);
        if (begin >= n) return;
        const int64_t share = (n - begin) / (kGuidedShare * n_threads_);
        const int64_t end =
            std::min(begin + std::max<int64_t>(1, (share + grain - 1) / grain) * grain, n);
        if (!ticket_.compare_exchange_weak(t, tag | static_cast<uint64_t>(end),
                                           std::memory_order_acq_rel))
            continue; // t now holds the current ticket
        (*job_)(begin, end, index);
        if (done_units_.fetch_add(end - begin) + (end - begin) == n && index != 0 &&
            caller_sleeping_.load()) {
            std::lock_guard<std::mutex> lock(mu_);
            done_.notify_one();
        }
        t = ticket_.load(std::memory_order_acquire);
    }
}

void ThreadPool::parallel_for(int64_t n, int64_t grain,
                              const std::function<void(int64_t, int64_t, int)> &fn) {
    if (n <= 0) return;
    grain = std::max<int64_t>(1, grain);
    if (n_threads_ == 1 || n <= grain) {
        fn(0, n, 0);
        return;
    }
    if (n > 0xffffffffll) {
        for (int64_t b = 0; b < n; b += 0xffffffffll) // (not with any real model)
            parallel_for(std::min<int64_t>(0xffffffffll, n - b), grain,
                         [&](int64_t lo, int64_t hi, int t) { fn(b + lo, b + hi, t); });
        return;
    }
    const uint64_t generation = generation_.load(std::memory_order_relaxed) + 1;
    const uint64_t tag = (generation & 0xffffffffu) << 32;
    // Close the ticket before the job fields change. A worker that loaded
    // the previous (fully claimed) ticket may read the new job_n_ below and
    // see room to claim; its compare-and-swap must then fail, which it does
    // because the ticket it holds is no longer current. Without this step
    // the old ticket stays current until the store that opens the new job,
    // and such a worker claims indices of the old generation past their end,
    // counting them into the new job's done_units_.
    ticket_.store(tag | 0xffffffffu);
    job_ = &fn;
    job_n_.store(n, std::memory_order_release);
    job_grain_.store(grain, std::memory_order_release);
    done_units_.store(0, std::memory_order_relaxed);
    ticket_.store(tag, std::memory_order_release); // open: first unclaimed index 0
    generation_.store(generation);                 // seq_cst: ordered before reading sleepers_
    if (sleepers_.load() > 0) {
        // Taking the lock orders this notify after a worker's last check.
        std::lock_guard<std::mutex> lock(mu_);
        wake_.notify_all();
    }
    run_chunks(generation, 0);
    auto finished = [&] { return done_units_.load() == n; }; // seq_cst: pairs with caller_sleeping_
    if (!spin_until(finished)) {
        std::unique_lock<std::mutex> lock(mu_);
        caller_sleeping_.store(true);
        done_.wait(lock, finished);
        caller_sleeping_.store(false);
    }
}

void ThreadPool::worker(int index) {
    uint64_t seen = 0;
    for (;;) {
        auto posted = [&] { return generation_.load(std::memory_order_acquire) != seen; };
        if (!spin_until([&] { return posted() || stop_.load(std::memory_order_relaxed); })) {
            std::unique_lock<std::mutex> lock(mu_);
            sleepers_.fetch_add(1);
            wake_.wait(lock, [&] { return stop_.load() || generation_.load() != seen; });
            sleepers_.fetch_sub(1);
        }
        if (stop_.load()) return;
        seen = generation_.load(std::memory_order_acquire);
        run_chunks(seen, index);
    }
}

int ThreadPool::physical_cores() {
    // Count distinct (physical id, core id) pairs; hyperthreads share one.
    std::ifstream in("/proc/cpuinfo");
    std::set<std::pair<std::string, std::string>> cores;
    std::string line, phys = "0";
    while (std::getline(in, line)) {
        auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::string key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
        std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
        if (key == "physical id") phys = value;
        if (key == "core id") cores.insert({phys, value});
    }
    unsigned logical = std::thread::hardware_concurrency();
    if (!cores.empty()) return static_cast<int>(cores.size());
    return logical ? static_cast<int>(logical) : 1;
}

} // namespace llm
