// GGUF's 32-value block types Q4_0, Q4_1, Q5_0, Q5_1: quantization round
// trips, the scalar decode kernel against a double-precision product of the
// dequantized weights, and the active SIMD level's decode and widening
// kernels against the scalar ones (run under each LLM_SIMD level by CTest).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/float_convert.h"
#include "kernels/kernel_table.h"
#include "kernels/kernels.h"
#include "kernels/quant_blocks.h"

using namespace llm;

namespace {

constexpr DType kLegacyTypes[] = {DType::Q4_0, DType::Q4_1, DType::Q5_0, DType::Q5_1};

bool has_min(DType t) {
    return t == DType::Q4_1 || t == DType::Q5_1;
}
int code_bits(DType t) {
    return t == DType::Q5_0 || t == DType::Q5_1 ? 5 : 4;
}

std::vector<uint8_t> quantize(DType t, const std::vector<float> &x) {
    const auto n = static_cast<int64_t>(x.size());
    std::vector<uint8_t> row(static_cast<size_t>(n / 32) * block_type_bytes(t));
    quantize_row_blocks(t, x.data(), row.data(), n);
    return row;
}

std::vector<float> dequantize(DType t, const std::vector<uint8_t> &row, int64_t n) {
    std::vector<float> out(static_cast<size_t>(n));
    dequantize_row_blocks(t, row.data(), out.data(), n);
    return out;
}

std::vector<float> gaussian(std::mt19937 &rng, int64_t n, float sigma) {
    std::normal_distribution<float> dist(0.0f, sigma);
    std::vector<float> x(static_cast<size_t>(n));
    for (float &v : x)
        v = dist(rng);
    return x;
}

// Activations as matvec_group hands them to the kernels: Q8 blocks (by the
// scalar table's quantizer) and each block's scale * sum of quants.
struct Act {
    std::vector<BlockQ8Act> q;
    std::vector<float> xsum;
};
Act quantize_act(const KernelTable &ref, const std::vector<float> &x) {
    const auto n = static_cast<int64_t>(x.size());
    Act a;
    a.q.resize(static_cast<size_t>(n / 32));
    ref.quantize_act_q8(x.data(), a.q.data(), n);
    for (const BlockQ8Act &b : a.q) {
        int32_t s = 0;
        for (int8_t v : b.q)
            s += v;
        a.xsum.push_back(b.scale * static_cast<float>(s));
    }
    return a;
}

const KernelTable &scalar_table() {
    static const KernelTable t = [] {
        KernelTable s;
        fill_scalar_kernels(s);
        return s;
    }();
    return t;
}

MatvecBlocksFn matvec_of(const KernelTable &k, DType t) {
    switch (t) {
    case DType::Q4_0: return k.matvec_q4_0;
    case DType::Q4_1: return k.matvec_q4_1;
    case DType::Q5_0: return k.matvec_q5_0;
    default: return k.matvec_q5_1;
    }
}
WidenFn widen_of(const KernelTable &k, DType t) {
    switch (t) {
    case DType::Q4_0: return k.widen_q4_0;
    case DType::Q4_1: return k.widen_q4_1;
    case DType::Q5_0: return k.widen_q5_0;
    default: return k.widen_q5_1;
    }
}

} // namespace

TEST_CASE("legacy blocks: the layout's fields decode as documented", "[quant_legacy]") {
    // Hand-built blocks: d = 0.5, m = -1, codes j (j < 16 in low nibbles),
    // Q5's fifth bit set on odd values.
    for (DType t : kLegacyTypes) {
        INFO(dtype_name(t));
        const int bits = code_bits(t);
        std::vector<uint8_t> blk(block_type_bytes(t), 0);
        const uint16_t d = f32_to_f16(0.5f), m = f32_to_f16(-1.0f);
        std::memcpy(blk.data(), &d, 2);
        size_t at = 2;
        if (has_min(t)) {
            std::memcpy(blk.data() + 2, &m, 2);
            at = 4;
        }
        if (bits == 5) {
            const uint32_t h = 0xaaaaaaaau;
            std::memcpy(blk.data() + at, &h, 4);
            at += 4;
        }
        for (int j = 0; j < 16; ++j)
            blk[at + static_cast<size_t>(j)] = static_cast<uint8_t>(j | (15 - j) << 4);
        const std::vector<float> v = dequantize(t, blk, 32);
        for (int j = 0; j < 32; ++j) {
            int q = j < 16 ? j : 15 - (j - 16);
            if (bits == 5) q |= (j & 1) << 4;
            const float want = has_min(t) ? 0.5f * q - 1.0f : 0.5f * (q - (1 << (bits - 1)));
            CHECK(v[static_cast<size_t>(j)] == want);
        }
    }
}

TEST_CASE("legacy blocks: quantization rounds to the nearest code", "[quant_legacy]") {
    std::mt19937 rng(7);
    for (DType t : kLegacyTypes) {
        INFO(dtype_name(t));
        const int top = (1 << code_bits(t)) - 1;
        for (float sigma : {1e-3f, 0.02f, 1.0f, 300.0f}) {
            std::vector<float> x = gaussian(rng, 32 * 64, sigma);
            for (size_t i = 0; i < x.size(); i += 97)
                x[i] = 0.0f;
            const std::vector<uint8_t> row = quantize(t, x);
            const std::vector<float> y = dequantize(t, row, static_cast<int64_t>(x.size()));
            double err2 = 0.0, x2 = 0.0;
            for (size_t b = 0; b < x.size() / 32; ++b) {
                const uint8_t *blk = row.data() + b * block_type_bytes(t);
                uint16_t dh;
                std::memcpy(&dh, blk, 2);
                const double d = f16_to_f32(dh);
                double m = -d * (1 << (code_bits(t) - 1));
                if (has_min(t)) {
                    std::memcpy(&dh, blk + 2, 2);
                    m = f16_to_f32(dh);
                }
                // The value of the top code: values beyond it are clamped to
                // it. The _0 types' top code is z - 1, so the value opposite
                // the block's extreme may be a whole step off.
                const auto top_value = static_cast<float>(m + d * top);
                double amax = 0.0;
                for (size_t j = 0; j < 32; ++j)
                    amax = std::max(amax, std::fabs(static_cast<double>(x[b * 32 + j])));
                const double slack = amax * std::ldexp(1.0, -9); // fp16 rounding of d and m
                for (size_t j = 0; j < 32; ++j) {
                    const double xv = x[b * 32 + j], yv = y[b * 32 + j], err = std::fabs(xv - yv);
                    err2 += err * err;
                    x2 += xv * xv;
                    CHECK(err <= (y[b * 32 + j] == top_value ? 1.0 : 0.5) * std::fabs(d) + slack);
                }
            }
            // Gaussian data: the RMS error is a few % of the RMS value.
            const double rel = std::sqrt(err2 / x2);
            CHECK(rel < (code_bits(t) == 4 ? 0.12 : 0.06));
            CHECK(rel > 0.0);
        }
    }
}

TEST_CASE("legacy blocks: zeros, tiny and huge values stay finite", "[quant_legacy]") {
    const std::vector<std::vector<float>> blocks = {
        std::vector<float>(32, 0.0f),
        std::vector<float>(32, 1e-30f),
        std::vector<float>(32, -3e-8f),
        std::vector<float>(32, 3e38f),
        std::vector<float>(32, -3e38f),
        [] {
            std::vector<float> v(32);
            for (int j = 0; j < 32; ++j)
                v[static_cast<size_t>(j)] = (j % 2 ? 3.4e38f : -3.4e38f) / (j + 1);
            return v;
        }(),
        [] {
            std::vector<float> v(32, 0.0f);
            v[5] = 1e-40f; // subnormal
            v[6] = -2e-45f;
            return v;
        }(),
        [] {
            std::vector<float> v(32, 1.0f);
            v[0] = 1e6f; // beyond fp16: saturates
            return v;
        }(),
    };
    for (DType t : kLegacyTypes) {
        INFO(dtype_name(t));
        for (const std::vector<float> &x : blocks) {
            const std::vector<float> y = dequantize(t, quantize(t, x), 32);
            double amax = 0.0;
            for (float v : x)
                amax = std::max(amax, std::fabs(static_cast<double>(v)));
            for (size_t j = 0; j < 32; ++j) {
                REQUIRE(std::isfinite(y[j]));
                CHECK(std::fabs(y[j]) <= std::max(amax, 65504.0 * 32));
                if (amax < 1e4) CHECK(std::fabs(y[j] - x[j]) <= amax + 1e-30);
            }
        }
        const std::vector<float> zeros = dequantize(t, quantize(t, blocks[0]), 32);
        for (float v : zeros)
            CHECK(v == 0.0f);
    }
}

TEST_CASE("legacy blocks: the scalar decode kernel is the blockwise integer product",
          "[quant_legacy]") {
    const KernelTable &ref = scalar_table();
    std::mt19937 rng(11);
    for (DType t : kLegacyTypes) {
        INFO(dtype_name(t));
        for (int64_t cols : {32, 96, 896}) {
            std::vector<float> w = gaussian(rng, cols, 0.05f);
            for (float &v : w)
                v += 0.01f; // off-centre, so that the _1 types' minimum matters
            const std::vector<uint8_t> row = quantize(t, w);
            const std::vector<float> wd = dequantize(t, row, cols);
            const Act a = quantize_act(ref, gaussian(rng, cols, 1.0f));
            double want = 0.0, mag = 0.0;
            for (int64_t j = 0; j < cols; ++j) {
                const BlockQ8Act &b = a.q[static_cast<size_t>(j / 32)];
                const double term =
                    static_cast<double>(wd[static_cast<size_t>(j)]) * b.scale * b.q[j % 32];
                want += term;
                mag += std::fabs(term);
            }
            const uint8_t *w0 = row.data();
            float got = 0.0f;
            float *y0 = &got;
            matvec_of(ref, t)(&w0, row.size(), cols, a.q.data(), a.xsum.data(), &y0, 1, 1);
            CHECK(std::fabs(got - want) <= 1e-5 * mag + 1e-30);
        }
    }
}

TEST_CASE("legacy blocks: the active level's decode kernel matches the scalar one",
          "[quant_legacy]") {
    const KernelTable &ref = scalar_table(), &k = kernel_table();
    INFO("level " << simd_level_name(k.level));
    std::mt19937 rng(5);
    for (DType t : kLegacyTypes) {
        INFO(dtype_name(t));
        if (k.level != SimdLevel::Scalar) CHECK(matvec_of(k, t) != matvec_of(ref, t));
        for (int64_t cols : {32, 96, 256, 896, 4864}) {
            INFO("cols " << cols);
            const int64_t max_lanes = cols > 1000 ? 9 : 11;
            const int64_t n_steps = cols > 1000 ? 2 : 3;
            const size_t row_bytes = static_cast<size_t>(cols / 32) * block_type_bytes(t);
            const size_t stride = row_bytes + (cols == 96 ? 6 : 0); // a stride past the row too
            const int64_t n_rows = max_lanes * n_steps;
            std::vector<uint8_t> m(stride * static_cast<size_t>(n_rows) + 64, 0xcd);
            for (int64_t r = 0; r < n_rows; ++r) {
                std::vector<float> w = gaussian(rng, cols, 0.05f);
                const float shift = std::uniform_real_distribution<float>(-0.05f, 0.05f)(rng);
                for (float &v : w)
                    v += shift;
                quantize_row_blocks(t, w.data(), m.data() + stride * static_cast<size_t>(r), cols);
            }
            const Act a = quantize_act(ref, gaussian(rng, cols, 1.0f));
            // Per row: sum |w x|, the scale of the fp32 rounding differences.
            std::vector<double> mag(static_cast<size_t>(n_rows), 0.0);
            for (int64_t r = 0; r < n_rows; ++r) {
                std::vector<float> wd(static_cast<size_t>(cols));
                dequantize_row_blocks(t, m.data() + stride * static_cast<size_t>(r), wd.data(),
                                      cols);
                for (int64_t j = 0; j < cols; ++j) {
                    const BlockQ8Act &b = a.q[static_cast<size_t>(j / 32)];
                    mag[static_cast<size_t>(r)] += std::fabs(
                        static_cast<double>(wd[static_cast<size_t>(j)]) * b.scale * b.q[j % 32]);
                }
            }
            // A row's result must not depend on the rows read with it.
            std::vector<float> first(static_cast<size_t>(n_rows), NAN);
            for (int64_t n_lanes = 1; n_lanes <= max_lanes; ++n_lanes) {
                // Lane l's rows: l, l + n_lanes, ... (interleaved lanes).
                std::vector<const uint8_t *> lw(static_cast<size_t>(n_lanes));
                std::vector<float> got(static_cast<size_t>(n_lanes * n_steps), NAN),
                    want(got.size(), NAN);
                std::vector<float *> gy(lw.size()), wy(lw.size());
                for (int64_t l = 0; l < n_lanes; ++l) {
                    lw[static_cast<size_t>(l)] = m.data() + stride * static_cast<size_t>(l);
                    gy[static_cast<size_t>(l)] = got.data() + l * n_steps;
                    wy[static_cast<size_t>(l)] = want.data() + l * n_steps;
                }
                const size_t lane_stride = stride * static_cast<size_t>(n_lanes);
                matvec_of(ref, t)(lw.data(), lane_stride, cols, a.q.data(), a.xsum.data(),
                                  wy.data(), n_lanes, n_steps);
                matvec_of(k, t)(lw.data(), lane_stride, cols, a.q.data(), a.xsum.data(), gy.data(),
                                n_lanes, n_steps);
                for (int64_t l = 0; l < n_lanes; ++l)
                    for (int64_t s = 0; s < n_steps; ++s) {
                        INFO("lanes " << n_lanes << " lane " << l << " step " << s);
                        // Both sum the same exact integer block products; only
                        // the order of the fp32 additions differs.
                        const auto i = static_cast<size_t>(l * n_steps + s);
                        const auto r = static_cast<size_t>(l + s * n_lanes);
                        REQUIRE(std::isfinite(got[i]));
                        CHECK(std::fabs(got[i] - want[i]) <= 1e-5 * mag[r]);
                        if (std::isnan(first[r]))
                            first[r] = got[i];
                        else
                            CHECK(got[i] == first[r]);
                    }
            }
        }
    }
}

TEST_CASE("legacy blocks: the active level's widening equals dequantization", "[quant_legacy]") {
    const KernelTable &k = kernel_table();
    INFO("level " << simd_level_name(k.level));
    std::mt19937 rng(3);
    for (DType t : kLegacyTypes) {
        INFO(dtype_name(t));
        for (int64_t cols : {32, 96, 896}) {
            const int64_t n_rows = 5;
            const size_t row_bytes = static_cast<size_t>(cols / 32) * block_type_bytes(t);
            const size_t stride = row_bytes + 2;
            std::vector<uint8_t> m(stride * static_cast<size_t>(n_rows));
            std::vector<float> want(static_cast<size_t>(cols * n_rows));
            for (int64_t r = 0; r < n_rows; ++r) {
                std::vector<float> w = gaussian(rng, cols, r == 0 ? 1e-6f : 3.0f);
                uint8_t *row = m.data() + stride * static_cast<size_t>(r);
                quantize_row_blocks(t, w.data(), row, cols);
                dequantize_row_blocks(t, row, want.data() + r * cols, cols);
            }
            std::vector<float> got(want.size(), NAN);
            widen_of(k, t)(m.data(), stride, cols, got.data(), n_rows);
            CHECK(std::memcmp(got.data(), want.data(), got.size() * 4) == 0);
        }
    }
}

TEST_CASE("legacy blocks: matmul and matrix_row_f32 reach the kernels", "[quant_legacy]") {
    // Decode (one token, quantized activations) and prefill against a
    // double product of the dequantized weights. Decode carries the
    // activations' quantization error, ~1% of sum |w x| at most; so does
    // prefill where the table has the int8 GEMM (the rows' int8 form meets
    // activations quantized as in decode, and each token's result equals
    // its decode result), elsewhere it widens the rows for the fp32 GEMM.
    const bool int8_prefill = kernel_table().gemm_q8_scaled != nullptr;
    std::mt19937 rng(17);
    const int64_t rows = 37, cols = 160;
    for (DType t : kLegacyTypes) {
        INFO(dtype_name(t));
        const size_t row_bytes = static_cast<size_t>(cols / 32) * block_type_bytes(t);
        std::vector<uint8_t> data(row_bytes * rows);
        std::vector<float> wd(static_cast<size_t>(rows * cols));
        for (int64_t r = 0; r < rows; ++r) {
            const std::vector<float> w = gaussian(rng, cols, 0.1f);
            quantize_row_blocks(t, w.data(), data.data() + row_bytes * static_cast<size_t>(r),
                                cols);
            dequantize_row_blocks(t, data.data() + row_bytes * static_cast<size_t>(r),
                                  wd.data() + r * cols, cols);
        }
        Matrix m;
        m.data = data.data();
        m.type = t;
        m.rows = rows;
        m.cols = cols;
        std::vector<float> row(static_cast<size_t>(cols));
        matrix_row_f32(m, 7, row.data());
        CHECK(std::memcmp(row.data(), wd.data() + 7 * cols, row.size() * 4) == 0);
        for (int64_t n_tokens : {1, 5}) {
            INFO("tokens " << n_tokens);
            const std::vector<float> x = gaussian(rng, n_tokens * cols, 1.0f);
            std::vector<float> y(static_cast<size_t>(n_tokens * rows), NAN);
            matmul(m, x.data(), n_tokens, y.data(), nullptr);
            for (int64_t tok = 0; tok < n_tokens; ++tok) {
                std::vector<float> alone(static_cast<size_t>(rows));
                matmul(m, x.data() + tok * cols, 1, alone.data(), nullptr);
                for (int64_t r = 0; r < rows; ++r) {
                    double want = 0.0, mag = 0.0;
                    for (int64_t j = 0; j < cols; ++j) {
                        const double p =
                            static_cast<double>(wd[static_cast<size_t>(r * cols + j)]) *
                            x[static_cast<size_t>(tok * cols + j)];
                        want += p;
                        mag += std::fabs(p);
                    }
                    const float got = y[static_cast<size_t>(tok * rows + r)];
                    const bool quantized_x = n_tokens == 1 || int8_prefill;
                    CHECK(std::fabs(got - want) <= (quantized_x ? 1e-2 : 1e-5) * mag);
                    if (int8_prefill)
                        CHECK(std::fabs(got - alone[static_cast<size_t>(r)]) <= 1e-5 * mag);
                }
            }
        }
    }
}

namespace {

// x (n tokens x cols) in gemm_q8_0's activation panels (kernel_table.h), as
// pack_act_q8 in kernels.cpp lays them out.
std::vector<uint8_t> pack_act_panels(const KernelTable &k, const std::vector<float> &x, int64_t n,
                                     int64_t cols) {
    const int64_t nb = cols / 32, panel_bytes = act_q8_panel_bytes(cols);
    std::vector<uint8_t> out(static_cast<size_t>(act_q8_bytes(n, cols)), 0);
    std::vector<BlockQ8Act> blocks(static_cast<size_t>(nb));
    for (int64_t t = 0; t < n; ++t) {
        k.quantize_act_q8(x.data() + t * cols, blocks.data(), cols);
        uint8_t *panel = out.data() + t / kQ8PanelTokens * panel_bytes;
        const int64_t i = t % kQ8PanelTokens;
        for (int64_t b = 0; b < nb; ++b) {
            uint8_t *blk = panel + b * kQ8PanelBlockBytes;
            const BlockQ8Act &a = blocks[static_cast<size_t>(b)];
            int32_t sum = 0;
            for (int j = 0; j < 32; ++j)
                sum += a.q[j];
            const int32_t corr = -128 * sum;
            std::memcpy(blk + 4 * i, &corr, 4);
            std::memcpy(blk + 64 + 4 * i, &a.scale, 4);
            for (int g = 0; g < 8; ++g)
                std::memcpy(blk + 128 + 64 * g + 4 * i, a.q + 4 * g, 4);
        }
    }
    return out;
}

} // namespace

TEST_CASE("legacy blocks: Q4_0's own prefill GEMM equals the int8 form's", "[quant_legacy]") {
    // gemm_q4_0 unpacks the nibbles itself; its results must be those of
    // gemm_q8_scaled over int8_form_row, value for value.
    const KernelTable &k = kernel_table();
    if (!k.gemm_q4_0) {
        CHECK(k.gemm_q8_0 == nullptr); // the two come together
        return;
    }
    REQUIRE(k.gemm_q8_scaled);
    std::mt19937 rng(35);
    const int64_t rows = 53, cols = 320; // rows: not whole panels nor tiles
    const size_t row_bytes = static_cast<size_t>(cols / 32) * kQ4_0Bytes;
    std::vector<uint8_t> data(row_bytes * rows);
    for (int64_t r = 0; r < rows; ++r) {
        std::vector<float> w = gaussian(rng, cols, r == 3 ? 1e-6f : 0.1f);
        if (r == 5) w.assign(w.size(), 0.0f); // zero scales
        quantize_row_blocks(DType::Q4_0, w.data(), data.data() + row_bytes * r, cols);
    }
    const int64_t form_bytes = int8_form_row_bytes(cols);
    std::vector<uint8_t> form(static_cast<size_t>(form_bytes * rows));
    for (int64_t r = 0; r < rows; ++r)
        int8_form_row(DType::Q4_0, data.data() + row_bytes * r, form.data() + form_bytes * r, cols);
    std::vector<uint8_t> scratch(gemm_q4_0_scratch_bytes(cols));
    for (int64_t n_tokens : {1, 7, 16, 33, 128}) {
        INFO("tokens " << n_tokens);
        const std::vector<float> x = gaussian(rng, n_tokens * cols, 1.0f);
        const std::vector<uint8_t> xq = pack_act_panels(k, x, n_tokens, cols);
        std::vector<float> want(static_cast<size_t>(n_tokens * rows), NAN);
        std::vector<float> got(want.size(), NAN);
        k.gemm_q8_scaled(form.data(), static_cast<size_t>(form_bytes), rows, xq.data(), n_tokens,
                         cols, want.data(), rows);
        k.gemm_q4_0(data.data(), row_bytes, rows, xq.data(), n_tokens, cols, got.data(), rows,
                    scratch.data());
        int differ = 0;
        for (size_t i = 0; i < want.size(); ++i)
            differ += !(got[i] == want[i]);
        CHECK(differ == 0);
    }
}
