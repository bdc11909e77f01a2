#include "kernels/row_stream_trial.h"

#include <atomic>
#include <mutex>

#include "common/log.h"
#include "kernels/simd_level.h"

namespace llm {

int RowStreamTrial::streams() const {
    const int64_t block = calls_ / kBlockCalls;
    const int other = first_ == 4 ? 8 : 4;
    return block % 2 == 0 ? first_ : other;
}

bool RowStreamTrial::record(int streams, int64_t bytes, int64_t ns) {
    if (done() || bytes < kMinBytes || (streams != 4 && streams != 8)) return false;
    const int i = streams == 4 ? 0 : 1;
    ns_[i] += static_cast<double>(ns);
    bytes_[i] += static_cast<double>(bytes);
    ++calls_;
    return done();
}

int RowStreamTrial::winner() const {
    if (!(ns_[0] > 0 && ns_[1] > 0)) return first_;
    const double rate4 = bytes_[0] / ns_[0], rate8 = bytes_[1] / ns_[1];
    return rate4 > rate8 ? 4 : 8;
}

namespace {
std::mutex g_mutex;
std::atomic<bool> g_finished{false};
} // namespace

bool row_stream_trial_running() {
    return !g_finished.load(std::memory_order_relaxed) && !matvec_row_streams_fixed();
}

void row_stream_trial_record(int streams, int64_t bytes, int64_t ns) {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_finished.load(std::memory_order_relaxed)) return;
    static RowStreamTrial trial(matvec_row_streams());
    if (trial.record(streams, bytes, ns)) {
        g_finished.store(true, std::memory_order_relaxed);
        set_matvec_row_streams_measured(trial.winner());
        log(LLM_LOG_INFO, "matrix-vector products: ", trial.winner(),
            " row streams read fastest on this machine");
    } else if (!trial.done()) {
        set_matvec_row_streams_measured(trial.streams());
    }
}

} // namespace llm
