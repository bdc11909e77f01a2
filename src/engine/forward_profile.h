// Where a forward pass spends its time, stage by stage, and the bytes each
// stage reads: for tools that show it (llm-bench --profile). Off unless a
// profile is attached to a Transformer (set_profile); then each stage costs
// two clock reads more.
//
// The stages are the big readers of memory: the matrix products, each
// counted by the weight bytes it reads, and attention, counted by the keys
// and values it reads. What lies between them (norms, RoPE, the KV store,
// residual adds) is not timed: it is the forward pass's time minus theirs.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>

namespace llm {

struct ForwardProfile {
    enum Stage { QKV, Attention, Output, GateUp, Down, Classifier, kStages };
    static const char *name(int stage) {
        static const char *const names[kStages] = {"q,k,v",   "attention", "o",
                                                   "gate,up", "down",      "classifier"};
        return stage >= 0 && stage < kStages ? names[stage] : "?";
    }

    std::array<double, kStages> seconds{}, bytes{};
    std::array<int64_t, kStages> calls{};
};

// Adds the time from its construction to stop() (or its destruction), one
// call and `bytes` to `stage` of `profile`; does nothing when profile is null.
class StageTimer {
  public:
    StageTimer(ForwardProfile *profile, ForwardProfile::Stage stage, double bytes)
        : profile_(profile), stage_(stage), bytes_(bytes) {
        if (profile_) start_ = std::chrono::steady_clock::now();
    }
    ~StageTimer() { stop(); }
    void stop() {
        if (!profile_) return;
        const std::chrono::duration<double> d = std::chrono::steady_clock::now() - start_;
        profile_->seconds[stage_] += d.count();
        profile_->bytes[stage_] += bytes_;
        profile_->calls[stage_] += 1;
        profile_ = nullptr;
    }
    StageTimer(const StageTimer &) = delete;
    StageTimer &operator=(const StageTimer &) = delete;

  private:
    ForwardProfile *profile_;
    ForwardProfile::Stage stage_;
    double bytes_;
    std::chrono::steady_clock::time_point start_;
};

} // namespace llm
