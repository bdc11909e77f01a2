// A persistent pool of worker threads. parallel_for hands out [0, n) to
// the workers and the caller's thread, and returns when all is done.
//
// Each thread starts with its own equal, contiguous part of [0, n) (its
// home) and takes it front to back, in chunks that shrink as the home
// empties. A thread whose home is empty steals the back half of the
// fullest other home, makes it its home and goes on. So, when every thread
// runs at the same speed, each walks one contiguous range (a matrix x
// vector kernel keeps its row streams running from one chunk to the next,
// see matmul_group), and the work still balances when it does not: a
// thread the OS has not scheduled (the machine is busy with other work) is
// not waited for, its home is taken by the threads that are running.
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
#include <memory>
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
    // A chunk of `index`'s home, or of the one it steals; false when every
    // home is empty.
    bool claim(uint64_t tag, int index, int64_t &begin, int64_t &end);

    // A home: one word of the job's tag (the low 20 bits of its
    // generation), the first unclaimed index and the end (22 bits each).
    // Every claim is a compare-and-swap on the whole word, so a thread
    // still holding an older job's word can never take part of a newer job.
    // One cache line each: owners claim without disturbing each other.
    struct alignas(64) Home {
        std::atomic<uint64_t> range{0};
    };

    int n_threads_;
    std::vector<std::thread> workers_;
    std::unique_ptr<Home[]> homes_;

    // The current job: written before its homes open, read after a claim.
    const std::function<void(int64_t, int64_t, int)> *job_ = nullptr;
    std::atomic<int64_t> job_n_{0}, job_grain_{1};
    std::atomic<int64_t> done_units_{0};  // indices finished in the current job
    std::atomic<uint64_t> generation_{0}; // jobs posted so far
    std::atomic<int> sleepers_{0};        // workers blocked on wake_
    std::atomic<bool> caller_sleeping_{false};
    std::atomic<bool> stop_{false};
    std::mutex mu_;
    std::condition_variable wake_, done_;
};

} // namespace llm
