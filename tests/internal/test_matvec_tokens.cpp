// The multi-token Q8_0 decode kernel (KernelTable::matvec_q8_0_tokens)
// against the one-token kernel, one call per token: the results must be
// the same bits. Run under each LLM_SIMD level; levels without the kernel
// pass trivially.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <vector>

#include "kernels/kernel_table.h"
#include "kernels/quant.h"
#include "kernels/simd_level.h"

using namespace llm;

namespace {

void check_tokens_kernel(int64_t cols, int64_t n_tokens, int64_t n_lanes, int64_t n_steps) {
    const KernelTable &k = kernel_table();
    const int64_t nb = cols / kQ8BlockSize;
    const size_t stride = static_cast<size_t>(q8_0_row_bytes(cols)) + 6; // not a nice stride
    const int64_t rows = n_lanes * n_steps;
    std::mt19937 rng(static_cast<uint32_t>(cols * 131 + n_tokens * 7 + n_lanes));
    std::normal_distribution<float> dist(0.0f, 1.0f);
    std::vector<uint8_t> w(static_cast<size_t>(rows) * stride + 64);
    std::vector<float> v(static_cast<size_t>(cols));
    for (int64_t r = 0; r < rows; ++r) {
        for (auto &e : v)
            e = dist(rng);
        quantize_row_q8_0(v.data(), w.data() + static_cast<size_t>(r) * stride, cols);
    }
    std::vector<BlockQ8Act> xq(static_cast<size_t>(n_tokens * nb));
    for (int64_t t = 0; t < n_tokens; ++t) {
        for (auto &e : v)
            e = dist(rng) * static_cast<float>(t + 1);
        k.quantize_act_q8(v.data(), xq.data() + t * nb, cols);
    }
    const int64_t ldy = rows + 3;
    std::vector<float> ref(static_cast<size_t>(n_tokens * ldy), -1.0f), got = ref;
    const uint8_t *lw[kMaxRowStreams];
    float *ly[kMaxRowStreams];
    for (int64_t t = 0; t < n_tokens; ++t) {
        for (int64_t l = 0; l < n_lanes; ++l) {
            lw[l] = w.data() + static_cast<size_t>(l * n_steps) * stride;
            ly[l] = ref.data() + t * ldy + l * n_steps;
        }
        k.matvec_q8_0(lw, stride, cols, xq.data() + t * nb, ly, n_lanes, n_steps);
    }
    for (int64_t l = 0; l < n_lanes; ++l)
        ly[l] = got.data() + l * n_steps;
    k.matvec_q8_0_tokens(lw, stride, cols, xq.data(), n_tokens, ly, ldy, n_lanes, n_steps);
    INFO("cols " << cols << ", tokens " << n_tokens << ", lanes " << n_lanes);
    CHECK(std::memcmp(ref.data(), got.data(), ref.size() * sizeof(float)) == 0);
}

} // namespace

TEST_CASE("matvec_q8_0_tokens: the same bits as the one-token kernel per token", "[kernels]") {
    if (!kernel_table().matvec_q8_0_tokens) return;
    const int saved = matvec_row_streams();
    for (const int streams : {4, 8}) {
        set_matvec_row_streams(streams);
        for (const int64_t cols : {32, 64, 96, 544, 896, 1056})
            for (int64_t n_tokens = 1; n_tokens <= 9; ++n_tokens) {
                check_tokens_kernel(cols, n_tokens, streams, 3);
                check_tokens_kernel(cols, n_tokens, 1, 2);
            }
    }
    set_matvec_row_streams(saved);
}
