// A persistent pool of worker threads. parallel_for splits [0, n) into
// contiguous chunks, one per thread (the caller's thread takes a share too),
// and returns when all are done. Idle workers sleep on a condition variable:
// no spinning that would starve a host sharing the cores.
#pragma once

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

    // fn(begin, end, thread_index) over a split of [0, n). Chunks are aligned
    // to `grain` (except the last). Not reentrant: one parallel_for at a time.
    void parallel_for(int64_t n, int64_t grain,
                      const std::function<void(int64_t, int64_t, int)> &fn);

    // The number of physical cores (falls back to logical CPUs).
    static int physical_cores();

  private:
    void worker(int index);

    int n_threads_;
    std::vector<std::thread> workers_;
    std::mutex mu_;
    std::condition_variable wake_, done_;
    const std::function<void(int64_t, int64_t, int)> *job_ = nullptr;
    int64_t job_n_ = 0, job_grain_ = 1;
    uint64_t generation_ = 0;
    int pending_ = 0;
    bool stop_ = false;
};

} // namespace llm
