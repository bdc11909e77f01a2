// The AMX-INT8 GEMM (kernels_amx_q8.cpp) against the AVX-512 VNNI one it
// replaces: the same bits for every shape, since each (row, token) gets the
// same integer block sums and the same float operations in the same order.
// Skipped on CPUs (or OSes) without AMX-INT8.
#include <catch2/catch.hpp>

#include <cstring>
#include <ctime>
#include <random>
#include <vector>

#include "kernels/kernel_table.h"
#include "kernels/quant.h"
#include "kernels/quant_blocks.h"
#include "kernels/simd_level.h"
#include "model/tensor.h"

using namespace llm;

namespace {

// The VNNI and AMX tables, or false when this machine has no AMX-INT8.
bool amx_int8_tables(KernelTable &vnni, KernelTable &amx) {
    if (!simd_level_supported(SimdLevel::Amx)) return false;
    fill_scalar_kernels(vnni);
    fill_scalar_kernels(amx);
    if (!fill_avx512vnni_kernels(vnni) || !fill_amx_kernels(amx)) return false;
    return amx.gemm_q8_0 && amx.gemm_q8_0 != vnni.gemm_q8_0;
}

std::vector<float> gaussian(std::mt19937 &rng, int64_t n, float sd) {
    std::normal_distribution<float> dist(0.0f, sd);
    std::vector<float> v(static_cast<size_t>(n));
    for (float &x : v)
        x = dist(rng);
    return v;
}

// Activations of n tokens in gemm_q8_0's panel layout (kernel_table.h), as
// pack_act_q8 lays them out. Token 2 is all zeros (scale 0), token 5 has
// one outlier per block.
std::vector<uint8_t> pack_panels(const KernelTable &k, std::mt19937 &rng, int64_t n, int64_t cols) {
    const int64_t nb = cols / kQ8BlockSize, panel_bytes = act_q8_panel_bytes(cols);
    std::vector<uint8_t> out(static_cast<size_t>(act_q8_bytes(n, cols)), 0);
    std::vector<BlockQ8Act> blocks(static_cast<size_t>(nb));
    for (int64_t t = 0; t < n; ++t) {
        std::vector<float> x = gaussian(rng, cols, 1.0f);
        if (t == 2) std::fill(x.begin(), x.end(), 0.0f);
        if (t == 5)
            for (int64_t b = 0; b < nb; ++b)
                x[static_cast<size_t>(b * kQ8BlockSize + b % kQ8BlockSize)] = 50.0f;
        k.quantize_act_q8(x.data(), blocks.data(), cols);
        uint8_t *panel = out.data() + t / kQ8PanelTokens * panel_bytes;
        const int64_t i = t % kQ8PanelTokens;
        for (int64_t b = 0; b < nb; ++b) {
            uint8_t *blk = panel + b * kQ8PanelBlockBytes;
            const BlockQ8Act &a = blocks[static_cast<size_t>(b)];
            int32_t sum = 0;
            for (int j = 0; j < kQ8BlockSize; ++j)
                sum += a.q[j];
            for (int g = 0; g < kQ8BlockSize / 4; ++g)
                std::memcpy(blk + 128 + 64 * g + 4 * i, a.q + 4 * g, 4);
            const int32_t corr = -128 * sum;
            std::memcpy(blk + 4 * i, &corr, 4);
            std::memcpy(blk + 64 + 4 * i, &a.scale, 4);
        }
    }
    return out;
}

// `rows` random rows of type t (Q8_0 or Q4_0); row 0 holds the extreme
// quants (a block of +-max|x|).
std::vector<uint8_t> random_rows(std::mt19937 &rng, DType t, int64_t rows, int64_t cols) {
    const size_t row_bytes = dtype_row_bytes(t, cols);
    std::vector<uint8_t> out(row_bytes * static_cast<size_t>(rows));
    for (int64_t r = 0; r < rows; ++r) {
        std::vector<float> w = gaussian(rng, cols, 0.05f);
        if (r == 0)
            for (int64_t j = 0; j < kQ8BlockSize; ++j)
                w[static_cast<size_t>(j)] = j % 2 ? 0.2f : -0.2f;
        uint8_t *row = out.data() + row_bytes * static_cast<size_t>(r);
        if (t == DType::Q8_0)
            quantize_row_q8_0(w.data(), row, cols);
        else
            quantize_row_blocks(t, w.data(), row, cols);
    }
    return out;
}

const int64_t kRows[] = {1, 7, 16, 17, 40};
const int64_t kCols[] = {32, 64, 96, 160, 544, 896};
constexpr int64_t kMaxTokens = 40;
constexpr float kSentinel = -12345.0f;

} // namespace

TEST_CASE("AMX-INT8 Q8_0 GEMM gives the AVX-512 VNNI GEMM's bits", "[kernels][amx]") {
    KernelTable vnni, amx;
    if (!amx_int8_tables(vnni, amx)) {
        WARN("no AMX-INT8 on this machine: skipped");
        return;
    }
    std::mt19937 rng(35);
    for (int64_t cols : kCols)
        for (int64_t rows : kRows) {
            const std::vector<uint8_t> w = random_rows(rng, DType::Q8_0, rows, cols);
            const size_t stride = dtype_row_bytes(DType::Q8_0, cols);
            const std::vector<uint8_t> x = pack_panels(vnni, rng, kMaxTokens, cols);
            for (int64_t n = 1; n <= kMaxTokens; ++n) {
                INFO("cols " << cols << ", rows " << rows << ", tokens " << n);
                const int64_t ldy = rows + 3; // the gaps must stay untouched
                std::vector<float> want(static_cast<size_t>(n * ldy), kSentinel);
                std::vector<float> got = want;
                vnni.gemm_q8_0(w.data(), stride, rows, x.data(), n, cols, want.data(), ldy);
                amx.gemm_q8_0(w.data(), stride, rows, x.data(), n, cols, got.data(), ldy);
                REQUIRE(std::memcmp(want.data(), got.data(), want.size() * sizeof(float)) == 0);
            }
        }
}

TEST_CASE("AMX-INT8 Q4_0 GEMM gives the AVX-512 VNNI GEMM's bits", "[kernels][amx]") {
    KernelTable vnni, amx;
    if (!amx_int8_tables(vnni, amx)) {
        WARN("no AMX-INT8 on this machine: skipped");
        return;
    }
    REQUIRE(amx.gemm_q4_0 != vnni.gemm_q4_0);
    std::mt19937 rng(37);
    for (int64_t cols : kCols)
        for (int64_t rows : kRows) {
            const std::vector<uint8_t> w = random_rows(rng, DType::Q4_0, rows, cols);
            const size_t stride = dtype_row_bytes(DType::Q4_0, cols);
            const std::vector<uint8_t> x = pack_panels(vnni, rng, kMaxTokens, cols);
            std::vector<uint8_t> scratch(gemm_q4_0_scratch_bytes(cols));
            for (int64_t n = 1; n <= kMaxTokens; ++n) {
                INFO("cols " << cols << ", rows " << rows << ", tokens " << n);
                const int64_t ldy = rows + 3;
                std::vector<float> want(static_cast<size_t>(n * ldy), kSentinel);
                std::vector<float> got = want;
                vnni.gemm_q4_0(w.data(), stride, rows, x.data(), n, cols, want.data(), ldy,
                               scratch.data());
                amx.gemm_q4_0(w.data(), stride, rows, x.data(), n, cols, got.data(), ldy,
                              scratch.data());
                REQUIRE(std::memcmp(want.data(), got.data(), want.size() * sizeof(float)) == 0);
            }
        }
}

TEST_CASE("AMX-INT8 GEMM of the int8 form gives the AVX-512 VNNI GEMM's bits", "[kernels][amx]") {
    KernelTable vnni, amx;
    if (!amx_int8_tables(vnni, amx)) {
        WARN("no AMX-INT8 on this machine: skipped");
        return;
    }
    REQUIRE(amx.gemm_q8_scaled != vnni.gemm_q8_scaled);
    std::mt19937 rng(38);
    for (DType t : {DType::Q4_1, DType::Q5_0})
        for (int64_t cols : kCols)
            for (int64_t rows : kRows) {
                const std::vector<uint8_t> blocks = random_rows(rng, t, rows, cols);
                const size_t stride = static_cast<size_t>(int8_form_row_bytes(cols));
                std::vector<uint8_t> w(stride * static_cast<size_t>(rows));
                for (int64_t r = 0; r < rows; ++r)
                    int8_form_row(t,
                                  blocks.data() + dtype_row_bytes(t, cols) * static_cast<size_t>(r),
                                  w.data() + stride * static_cast<size_t>(r), cols);
                const std::vector<uint8_t> x = pack_panels(vnni, rng, kMaxTokens, cols);
                for (int64_t n = 1; n <= kMaxTokens; ++n) {
                    INFO(dtype_name(t)
                         << ", cols " << cols << ", rows " << rows << ", tokens " << n);
                    const int64_t ldy = rows + 3;
                    std::vector<float> want(static_cast<size_t>(n * ldy), kSentinel);
                    std::vector<float> got = want;
                    vnni.gemm_q8_scaled(w.data(), stride, rows, x.data(), n, cols, want.data(),
                                        ldy);
                    amx.gemm_q8_scaled(w.data(), stride, rows, x.data(), n, cols, got.data(), ldy);
                    REQUIRE(std::memcmp(want.data(), got.data(), want.size() * sizeof(float)) == 0);
                }
            }
}

// Not a check: the thread CPU time of both GEMMs on Qwen2.5-0.5B's MLP
// shapes (run by name: llm_internal_tests "[.amx_speed]").
TEST_CASE("AMX-INT8 Q8_0 GEMM speed against AVX-512 VNNI", "[.amx_speed]") {
    KernelTable vnni, amx;
    if (!amx_int8_tables(vnni, amx)) return;
    auto cpu_seconds = [] {
        timespec ts;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
    };
    std::mt19937 rng(1);
    const int64_t shapes[][2] = {{4864, 896}, {896, 4864}};
    for (const auto &shape : shapes) {
        const int64_t rows = shape[0], cols = shape[1];
        const std::vector<uint8_t> w = random_rows(rng, DType::Q8_0, rows, cols);
        const size_t stride = dtype_row_bytes(DType::Q8_0, cols);
        const std::vector<uint8_t> x = pack_panels(vnni, rng, 128, cols);
        std::vector<float> y(static_cast<size_t>(128 * rows));
        for (int64_t n : {1, 2, 4, 8, 16, 32, 64, 128}) {
            double s[2];
            for (int which = 0; which < 2; ++which) {
                const KernelTable &k = which ? amx : vnni;
                const int reps = static_cast<int>(64 / n + 2);
                k.gemm_q8_0(w.data(), stride, rows, x.data(), n, cols, y.data(), rows);
                const double t0 = cpu_seconds();
                for (int i = 0; i < reps; ++i)
                    k.gemm_q8_0(w.data(), stride, rows, x.data(), n, cols, y.data(), rows);
                s[which] = (cpu_seconds() - t0) / reps;
            }
            const double macs = static_cast<double>(rows * cols * n);
            WARN(rows << "x" << cols << ", " << n << " tokens: vnni " << macs / s[0] * 1e-9
                      << " GMAC/s, amx " << macs / s[1] * 1e-9 << " GMAC/s (CPU time), x"
                      << s[0] / s[1]);
        }
    }
}
