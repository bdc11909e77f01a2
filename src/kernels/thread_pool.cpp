#include "kernels/thread_pool.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <string>
#include <utility>

namespace llm {

namespace {
// Chunk `index` of `parts` over [0, n), boundaries aligned to grain.
std::pair<int64_t, int64_t> chunk(int64_t n, int64_t grain, int parts, int index) {
    int64_t units = (n + grain - 1) / grain;
    int64_t begin = units * index / parts * grain;
    int64_t end = units * (index + 1) / parts * grain;
    return {std::min(begin, n), std::min(end, n)};
}
} // namespace

ThreadPool::ThreadPool(int n_threads) : n_threads_(std::max(1, n_threads)) {
    for (int i = 1; i < n_threads_; ++i)
        workers_.emplace_back(&ThreadPool::worker, this, i);
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        stop_ = true;
    }
    wake_.notify_all();
    for (auto &t : workers_)
        t.join();
}

void ThreadPool::parallel_for(int64_t n, int64_t grain,
                              const std::function<void(int64_t, int64_t, int)> &fn) {
    if (n <= 0) return;
    grain = std::max<int64_t>(1, grain);
    if (n_threads_ == 1 || n <= grain) {
        fn(0, n, 0);
        return;
    }
    {
        std::lock_guard<std::mutex> lock(mu_);
        job_ = &fn;
        job_n_ = n;
        job_grain_ = grain;
        pending_ = n_threads_ - 1;
        ++generation_;
    }
    wake_.notify_all();
    auto [b, e] = chunk(n, grain, n_threads_, 0);
    if (b < e) fn(b, e, 0);
    std::unique_lock<std::mutex> lock(mu_);
    done_.wait(lock, [&] { return pending_ == 0; });
    job_ = nullptr;
}

void ThreadPool::worker(int index) {
    uint64_t seen = 0;
    for (;;) {
        const std::function<void(int64_t, int64_t, int)> *job;
        int64_t n, grain;
        {
            std::unique_lock<std::mutex> lock(mu_);
            wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
            if (stop_) return;
            seen = generation_;
            job = job_;
            n = job_n_;
            grain = job_grain_;
        }
        auto [b, e] = chunk(n, grain, n_threads_, index);
        if (b < e) (*job)(b, e, index);
        {
            std::lock_guard<std::mutex> lock(mu_);
            if (--pending_ == 0) done_.notify_one();
        }
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
