// A persistent pool of worker threads. parallel_for hands out chunks of
// [0, n) to the workers and the caller's thread, and returns when all are
// done. Chunks are claimed dynamically and the caller waits only for chunks
// that were claimed: a worker the OS has not scheduled yet (the machine is
// busy with other work) is simply not waited for, its share is done by the
// threads that are running.
//
// Between jobs a worker spins briefly (a transformer layer posts several
// jobs back to back, microseconds apart) and then sleeps on a condition
// variable: an idle pool costs no CPU, and a pool sharing its cores with
// other work never spins for long.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace llm {

class ThreadPool {
  public:
    // n_threads counts the caller: 1 means no worker threads at all.
    explicit ThreadPool(int n_threads);
    ~ThreadPool();
    ThreadPool(const ThreadPool &) = delete;
    ThreadPool &operator=(const ThreadPool &) = delete;

    int size() const { return n_threads_; }

    // fn(begin, end, thread_index) over chunks of [0, n) whose boundaries
    // are multiples of `grain` (except at n). thread_index < size(); each
    // index is used by one thread at a time. Not reentrant.
    void parallel_for(int64_t n, int64_t grain,
                      const std::function<void(int64_t, int64_t, int)> &fn);

    // The number of physical cores (falls back to logical CPUs).
    static int physical_cores();

  private:
    void worker(int index);
    // Claims and runs chunks of job `generation` until none are left.
    void run_chunks(uint64_t generation, int index);

    int n_threads_;
    std::vector<std::thread> workers_;

    // The current job. ticket_ holds the job's generation (high 32 bits) and
    // the first unclaimed index (low 32): a claim is a compare-and-swap on
    // it, so a worker still holding an older generation can never take part
    // of a newer job.
    const std::function<void(int64_t, int64_t, int)> *job_ = nullptr;
    std::atomic<int64_t> job_n_{0}, job_grain_{1};
    std::atomic<uint64_t> ticket_{0};
    std::atomic<int64_t> done_units_{0};  // indices finished in the current job
    std::atomic<uint64_t> generation_{0}; // jobs posted so far
    std::atomic<int> sleepers_{0};        // workers blocked on wake_
    std::atomic<bool> caller_sleeping_{false};
    std::atomic<bool> stop_{false};
    std::mutex mu_;
    std::condition_variable wake_, done_;
};

} // namespace llm
