// The bookkeeping of the row-stream trial (row_stream_trial.h), fed
// timings: the clock and the globals are left out.
#include <catch2/catch.hpp>

#include "kernels/row_stream_trial.h"

using llm::RowStreamTrial;

namespace {
// Runs a whole trial in which `streams` read at the given bytes per ns.
int run_trial(int first, double rate4, double rate8) {
    RowStreamTrial trial(first);
    const int64_t bytes = RowStreamTrial::kMinBytes;
    int calls = 0;
    while (!trial.done()) {
        const int s = trial.streams();
        const double rate = s == 4 ? rate4 : rate8;
        trial.record(s, bytes, static_cast<int64_t>(static_cast<double>(bytes) / rate));
        ++calls;
    }
    CHECK(calls == RowStreamTrial::kBlockCalls * RowStreamTrial::kBlocks);
    return trial.winner();
}
} // namespace

TEST_CASE("row stream trial: the faster count wins, whichever starts", "[kernels][streams]") {
    CHECK(run_trial(8, 30.0, 20.0) == 4);
    CHECK(run_trial(4, 30.0, 20.0) == 4);
    CHECK(run_trial(8, 20.0, 30.0) == 8);
    CHECK(run_trial(4, 20.0, 30.0) == 8);
}

TEST_CASE("row stream trial: blocks alternate, small products are not counted",
          "[kernels][streams]") {
    RowStreamTrial trial(8);
    CHECK(trial.streams() == 8);
    for (int i = 0; i < RowStreamTrial::kBlockCalls; ++i) {
        CHECK_FALSE(trial.record(8, RowStreamTrial::kMinBytes - 1, 1000)); // not counted
        CHECK(trial.streams() == 8);
        trial.record(8, RowStreamTrial::kMinBytes, 1000);
    }
    CHECK(trial.streams() == 4);
    CHECK_FALSE(trial.done());
    CHECK(trial.winner() == 8); // only one count measured: the first stays
}
