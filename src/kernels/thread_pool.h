// A persistent pool of worker threads. parallel_for hands out chunks of
// [0, n) to the workers and the caller's thread, and returns when all are
// done. Chunks are claimed dynamically, so a thread slowed down by another
// process on its core just takes fewer of them.
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
    void run_chunks(int index);

    int n_threads_;
    std::vector<std::thread> workers_;

    // The current job, published by incrementing generation_.
    const std::function<void(int64_t, int64_t, int)> *job_ = nullptr;
    int64_t job_n_ = 0, job_chunk_ = 1;
    std::atomic<int64_t> next_{0};        // first unclaimed index
    std::atomic<uint64_t> generation_{0}; // jobs posted so far
    std::atomic<int> pending_{0};         // workers yet to finish the job
    std::atomic<int> sleepers_{0};        // workers blocked on wake_
    std::atomic<bool> caller_sleeping_{false};
    std::atomic<bool> stop_{false};
    std::mutex mu_;
    std::condition_variable wake_, done_;
};

} // namespace llm
