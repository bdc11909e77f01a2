// Settles matvec_row_streams() on the machine it runs on. Which of 4 or 8
// concurrent row streams reads weights faster depends on the CPU and on the
// machine around it (on a Zen 4 VM 4 streams decoded bf16 40% faster; on
// Intel VMs 8 were as fast or faster), so no table of CPU models holds. The
// first decoded tokens' matrix-vector products therefore take turns, in
// blocks, between the two counts, and the count that read the weights at
// more bytes per second is kept for the rest of the process. About six
// tokens of a 0.5B model; results never depend on the count (see
// for_lanes), only speed. LLM_ROW_STREAMS=4|8 skips the trial.
#pragma once

#include <cstdint>

namespace llm {

// The trial's bookkeeping, kept apart from the clock and the globals so
// that tests can feed it timings.
class RowStreamTrial {
  public:
    static constexpr int kBlockCalls = 48; // products per block of one count
    static constexpr int kBlocks = 8;      // alternating, starting with `first`
    // Products of fewer weight bytes are not counted: they may sit in cache,
    // and their time is mostly the threads' start and end.
    static constexpr int64_t kMinBytes = int64_t{1} << 20;

    explicit RowStreamTrial(int first) : first_(first == 4 ? 4 : 8) {}

    // The count the next product should use.
    int streams() const;
    // One product's weight bytes and time with `streams`; true when this
    // record ended the trial (winner() is then final).
    bool record(int streams, int64_t bytes, int64_t ns);
    bool done() const { return calls_ >= kBlockCalls * kBlocks; }
    int winner() const;

  private:
    int first_;
    int64_t calls_ = 0;
    double ns_[2] = {0, 0}, bytes_[2] = {0, 0}; // [0]: 4 streams, [1]: 8
};

// For matmul_group: whether the process-wide trial is still running, and a
// decode product's record (which switches matvec_row_streams() between
// blocks and settles it at the end).
bool row_stream_trial_running();
void row_stream_trial_record(int streams, int64_t bytes, int64_t ns);

} // namespace llm
