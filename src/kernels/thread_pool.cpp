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

// The handshakes. Sleeping and waking are two Dekker handshakes: each
// side writes its own flag, then reads the other's (the caller: generation_
// then sleepers_, caller_sleeping_ then done_units_; a worker: sleepers_
// then generation_, done_units_ then caller_sleeping_), so at least one of
// them sees the other and nobody sleeps through a wake-up. Each write is a
// read-modify-write rather than a seq_cst store. The C++ model allows the
// store, and real Arm orders STLR before a later LDAR, but qemu-user runs
// that pair as a plain store and a plain load on an x86 host, the load
// passes the store, and both threads sleep for good (a hang one run in a
// few dozen). An RMW is a full fence everywhere; on x86 it is the XCHG a
// seq_cst store compiles to anyway.

// A home's word (thread_pool.h): tag, front, back.
constexpr int kIndexBits = 22, kTagShift = 2 * kIndexBits;
constexpr uint64_t kIndexMask = (uint64_t{1} << kIndexBits) - 1;
uint64_t pack(uint64_t tag, int64_t front, int64_t back) {
    return tag << kTagShift | static_cast<uint64_t>(front) << kIndexBits |
           static_cast<uint64_t>(back);
}
uint64_t tag_of(uint64_t w) {
    return w >> kTagShift;
}
int64_t front_of(uint64_t w) {
    return static_cast<int64_t>(w >> kIndexBits & kIndexMask);
}
int64_t back_of(uint64_t w) {
    return static_cast<int64_t>(w & kIndexMask);
}

} // namespace

ThreadPool::ThreadPool(int n_threads)
    : n_threads_(std::max(1, n_threads)), homes_(std::make_unique<Home[]>(n_threads_)) {
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

bool ThreadPool::claim(uint64_t tag, int index, int64_t &begin, int64_t &end) {
    std::atomic<uint64_t> &own = homes_[index].range;
    for (;;) {
        // acquire: a word of this job's tag shows the job's fields below.
        uint64_t w = own.load(std::memory_order_acquire);
        if (tag_of(w) != tag) return false; // a newer job
        const int64_t grain = job_grain_.load(std::memory_order_relaxed);
        const int64_t f = front_of(w), b = back_of(w);
        if (f < b) {
            // Half of what the home has left, in whole grains: the chunks
            // shrink to a grain as it empties, so a thread that runs out
            // early finds the other homes' ends still there to steal.
            const int64_t half = ((b - f) / 2 + grain - 1) / grain * grain;
            end = std::min(b, f + std::max(grain, half));
            if (!own.compare_exchange_weak(w, pack(tag, end, b), std::memory_order_acq_rel))
                continue;
            begin = f;
            return true;
        }
        // Steal the back half (in whole grains; all of it if that is less
        // than two grains) of the home with the most left.
        int victim = -1;
        uint64_t vw = 0;
        for (int i = 0; i < n_threads_; ++i) {
            const uint64_t x = homes_[i].range.load(std::memory_order_acquire);
            if (i != index && tag_of(x) == tag &&
                back_of(x) - front_of(x) > (victim < 0 ? 0 : back_of(vw) - front_of(vw))) {
                victim = i;
                vw = x;
            }
        }
        if (victim < 0) return false;
        const int64_t vf = front_of(vw), vb = back_of(vw);
        const int64_t keep = (vb - vf) / 2 / grain * grain;
        if (!homes_[victim].range.compare_exchange_weak(vw, pack(tag, vf, vf + keep),
                                                        std::memory_order_acq_rel))
            continue;
        // The stolen part becomes this thread's home, taken front to back
        // like the first and open to stealing in turn. Nobody else writes
        // an empty home, so a plain store will do.
        own.store(pack(tag, vf + keep, vb), std::memory_order_release);
    }
}

void ThreadPool::run_chunks(uint64_t generation, int index) {
    const uint64_t tag = generation & (~uint64_t{0} >> kTagShift);
    int64_t begin = 0, end = 0;
    while (claim(tag, index, begin, end)) {
        (*job_)(begin, end, index);
        const int64_t n = job_n_.load(std::memory_order_relaxed);
        if (done_units_.fetch_add(end - begin) + (end - begin) == n && index != 0 &&
            caller_sleeping_.load()) {
            std::lock_guard<std::mutex> lock(mu_);
            done_.notify_one();
        }
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
    if (n > static_cast<int64_t>(kIndexMask)) { // (not with any real model)
        const int64_t piece = static_cast<int64_t>(kIndexMask) / grain * grain;
        for (int64_t b = 0; b < n; b += piece)
            parallel_for(std::min(piece, n - b), grain,
                         [&](int64_t lo, int64_t hi, int t) { fn(b + lo, b + hi, t); });
        return;
    }
    const uint64_t generation = generation_.load(std::memory_order_relaxed) + 1;
    const uint64_t tag = generation & (~uint64_t{0} >> kTagShift);
    // Every home of the last job is empty (all its indices were claimed
    // before it finished), so no thread can claim anything until the
    // stores below open the new ones.
    job_ = &fn;
    job_n_.store(n, std::memory_order_relaxed);
    job_grain_.store(grain, std::memory_order_relaxed);
    done_units_.store(0, std::memory_order_relaxed);
    const int64_t grains = (n + grain - 1) / grain;
    for (int i = 0; i < n_threads_; ++i) {
        const int64_t b = std::min(n, grains * i / n_threads_ * grain);
        const int64_t e = std::min(n, grains * (i + 1) / n_threads_ * grain);
        homes_[i].range.store(pack(tag, b, e), std::memory_order_release);
    }
    generation_.exchange(generation); // ordered before reading sleepers_ (the handshakes, above)
    if (sleepers_.load() > 0) {
        // Taking the lock orders this notify after a worker's last check.
        std::lock_guard<std::mutex> lock(mu_);
        wake_.notify_all();
    }
    run_chunks(generation, 0);
    auto finished = [&] { return done_units_.load() == n; }; // seq_cst: pairs with caller_sleeping_
    if (!spin_until(finished)) {
        std::unique_lock<std::mutex> lock(mu_);
        caller_sleeping_.exchange(true); // ordered before finished() (the handshakes, above)
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
