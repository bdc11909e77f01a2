// GGUF's K-quant types (Q4_K, Q5_K, Q6_K): the quantizer's error, its
// behaviour at the extremes, the scalar reference kernels against fp32 dot
// products of the decoded weights, and the active SIMD level's kernels
// (LLM_SIMD) against the scalar ones.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/float_convert.h"
#include "kernels/kernel_table.h"
#include "kernels/quant_blocks.h"

using namespace llm;

namespace {

const DType kTypes[] = {DType::Q4_K, DType::Q5_K, DType::Q6_K};

std::vector<float> random_values(size_t n, uint32_t seed, float scale = 1.0f) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> d(-scale, scale);
    std::vector<float> v(n);
    for (float &x : v)
        x = d(gen);
    return v;
}

std::vector<uint8_t> quantize(DType t, const std::vector<float> &x) {
    const auto n = static_cast<int64_t>(x.size());
    std::vector<uint8_t> row(static_cast<size_t>(n / kSuperBlockValues) * block_type_bytes(t));
    quantize_row_blocks(t, x.data(), row.data(), n);
    return row;
}

std::vector<float> dequantize(DType t, const std::vector<uint8_t> &row, int64_t n) {
    std::vector<float> out(static_cast<size_t>(n));
    dequantize_row_blocks(t, row.data(), out.data(), n);
    return out;
}

int code_bits(DType t) {
    return t == DType::Q4_K ? 4 : t == DType::Q5_K ? 5 : 6;
}

KernelTable scalar_table() {
    KernelTable t;
    fill_scalar_kernels(t);
    return t;
}

MatvecBlocksFn matvec_of(const KernelTable &k, DType t) {
    return t == DType::Q4_K ? k.matvec_q4_k : t == DType::Q5_K ? k.matvec_q5_k : k.matvec_q6_k;
}
WidenFn widen_of(const KernelTable &k, DType t) {
    return t == DType::Q4_K ? k.widen_q4_k : t == DType::Q5_K ? k.widen_q5_k : k.widen_q6_k;
}

// Activations quantized as kernels.cpp does for decode, with xsum.
struct Act {
    std::vector<BlockQ8Act> q;
    std::vector<float> xsum;
};
Act quantize_act(const std::vector<float> &x) {
    Act a;
    const auto n = static_cast<int64_t>(x.size());
    a.q.resize(static_cast<size_t>(n / kQ8BlockSize));
    scalar_table().quantize_act_q8(x.data(), a.q.data(), n);
    for (const BlockQ8Act &b : a.q) {
        int32_t s = 0;
        for (int8_t v : b.q)
            s += v;
        a.xsum.push_back(b.scale * static_cast<float>(s));
    }
    return a;
}

// A matrix of n_lanes x n_steps rows of type t, each row `stride` bytes
// apart (the lanes one after another), its decoded values, and its products.
struct Lanes {
    int64_t cols, n_lanes, n_steps;
    size_t stride;
    std::vector<uint8_t> bytes;
    std::vector<float> decoded; // row r = lane * n_steps + step
    std::vector<const uint8_t *> w;

    Lanes(DType t, int64_t cols_, int64_t lanes, int64_t steps, uint32_t seed)
        : cols(cols_), n_lanes(lanes), n_steps(steps) {
        const size_t row_bytes =
            static_cast<size_t>(cols / kSuperBlockValues) * block_type_bytes(t);
        stride = row_bytes + 64; // rows not back to back: the kernels must use stride
        bytes.assign(stride * static_cast<size_t>(lanes * steps), 0xAB);
        for (int64_t r = 0; r < lanes * steps; ++r) {
            // Rows of different magnitudes, some with an offset (mins at work).
            auto v = random_values(static_cast<size_t>(cols), seed + static_cast<uint32_t>(r),
                                   0.05f + 0.3f * static_cast<float>(r % 5));
            if (r % 3 == 1)
                for (float &x : v)
                    x += 0.4f;
            const auto q = quantize(t, v);
            std::memcpy(bytes.data() + stride * static_cast<size_t>(r), q.data(), q.size());
            const auto dq = dequantize(t, q, cols);
            decoded.insert(decoded.end(), dq.begin(), dq.end());
        }
        for (int64_t l = 0; l < lanes; ++l)
            w.push_back(bytes.data() + stride * static_cast<size_t>(l * steps));
    }

    // y[row] for the lanes' rows, by fn.
    std::vector<float> run(MatvecBlocksFn fn, const Act &a) const {
        std::vector<float> y(static_cast<size_t>(n_lanes * n_steps), NAN);
        std::vector<float *> ys;
        for (int64_t l = 0; l < n_lanes; ++l)
            ys.push_back(y.data() + l * n_steps);
        fn(w.data(), stride, cols, a.q.data(), a.xsum.data(), ys.data(), n_lanes, n_steps);
        return y;
    }
};

// ggml's layouts (ggml-common.h block_q4_K / q5_K / q6_K, as its
// dequantize_row_q4_K / q5_K / q6_K read them), written out value by value:
// random blocks must decode to these, whatever our quantizer writes.
float ggml_value(DType t, const uint8_t *blk, int v) {
    auto half = [](const uint8_t *p) {
        uint16_t h;
        std::memcpy(&h, p, 2);
        return f16_to_f32(h);
    };
    if (t == DType::Q6_K) {
        const int h = v / 128, r = v % 128, l = r % 32, part = r / 32;
        const uint8_t *ql = blk + 64 * h, *qh = blk + 128 + 32 * h;
        const int8_t *sc = reinterpret_cast<const int8_t *>(blk + 192) + 8 * h;
        const int low = part == 0   ? ql[l] & 15
                        : part == 1 ? ql[l + 32] & 15
                        : part == 2 ? ql[l] >> 4
                                    : ql[l + 32] >> 4;
        const int q = (low | ((qh[l] >> (2 * part)) & 3) << 4) - 32;
        return half(blk + 208) * sc[2 * part + l / 16] * q;
    }
    const uint8_t *s = blk + 4;
    const int j = v / 32, l = v % 32, c = j / 2;
    int sc, m;
    if (j < 4) {
        sc = s[j] & 63;
        m = s[j + 4] & 63;
    } else {
        sc = (s[j + 4] & 0xF) | ((s[j - 4] >> 6) << 4);
        m = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
    }
    const uint8_t *qs = blk + (t == DType::Q5_K ? 48 : 16);
    int q = j % 2 ? qs[32 * c + l] >> 4 : qs[32 * c + l] & 15;
    if (t == DType::Q5_K) q |= ((blk[16 + l] >> j) & 1) << 4; // bit 2c or 2c + 1 of qh[l]
    return half(blk) * sc * q - half(blk + 2) * m;
}

} // namespace

TEST_CASE("K-quant blocks decode as ggml lays them out", "[quant_kquants]") {
    std::mt19937 gen(3);
    for (DType t : kTypes) {
        CAPTURE(dtype_name(t));
        const size_t bytes = block_type_bytes(t);
        std::vector<uint8_t> row(2 * bytes);
        for (uint8_t &b : row)
            b = static_cast<uint8_t>(gen());
        // fp16 scales of sane size: d = 0.0123, dmin = 0.5 (Q6_K: d alone).
        const uint16_t d = f32_to_f16(0.0123f), dmin = f32_to_f16(0.5f);
        for (size_t at = 0; at < row.size(); at += bytes) {
            std::memcpy(&row[at + (t == DType::Q6_K ? 208 : 0)], &d, 2);
            if (t != DType::Q6_K) std::memcpy(&row[at + 2], &dmin, 2);
        }
        const auto out = dequantize(t, row, 2 * kSuperBlockValues);
        for (int v = 0; v < 2 * kSuperBlockValues; ++v) {
            CAPTURE(v);
            REQUIRE(
                out[static_cast<size_t>(v)] ==
                ggml_value(t, row.data() + v / kSuperBlockValues * bytes, v % kSuperBlockValues));
        }
    }
}

TEST_CASE("K-quants round-trip within their step", "[quant_kquants]") {
    for (DType t : kTypes) {
        CAPTURE(dtype_name(t));
        const int64_t n = 4 * kSuperBlockValues;
        auto x = random_values(static_cast<size_t>(n), 11);
        for (int64_t i = 256; i < 512; ++i)
            x[static_cast<size_t>(i)] = x[static_cast<size_t>(i)] * 0.01f + 0.5f; // offset block
        const auto dq = dequantize(t, quantize(t, x), n);
        // A code step over a sub-block's range of about 2 (Q6_K: signed, 64 codes).
        const double step = 2.0 / ((1 << code_bits(t)) - 1);
        double se = 0, sx = 0, max_err = 0;
        for (int64_t i = 0; i < n; ++i) {
            const double e = dq[static_cast<size_t>(i)] - x[static_cast<size_t>(i)];
            se += e * e;
            sx += static_cast<double>(x[static_cast<size_t>(i)]) * x[static_cast<size_t>(i)];
            max_err = std::max(max_err, std::fabs(e));
        }
        CHECK(max_err <= step);
        // Uniform rounding error is step / sqrt(12); allow the scales' own rounding.
        CHECK(std::sqrt(se / n) <= 0.4 * step);
        CHECK(std::sqrt(se / sx) < 0.1);
    }
}

TEST_CASE("K-quants stay finite at the extremes", "[quant_kquants]") {
    const int64_t n = kSuperBlockValues;
    std::vector<std::vector<float>> cases;
    cases.emplace_back(static_cast<size_t>(n), 0.0f);
    cases.emplace_back(static_cast<size_t>(n), 1e-30f);
    cases.emplace_back(static_cast<size_t>(n), -1e-30f);
    cases.emplace_back(static_cast<size_t>(n), 3e38f);
    cases.emplace_back(static_cast<size_t>(n), -3e38f);
    cases.emplace_back(static_cast<size_t>(n), -0.75f);
    cases.push_back(random_values(static_cast<size_t>(n), 5, 3e38f));
    cases.push_back(random_values(static_cast<size_t>(n), 6, 1e-20f));
    auto mixed = random_values(static_cast<size_t>(n), 7);
    mixed[3] = 1e30f;
    mixed[100] = -1e30f;
    mixed[200] = 1e-38f;
    cases.push_back(mixed);
    for (DType t : kTypes)
        for (const auto &x : cases) {
            CAPTURE(dtype_name(t), x[0]);
            const auto dq = dequantize(t, quantize(t, x), n);
            for (float v : dq)
                REQUIRE(std::isfinite(v));
            if (x[0] == 0.0f && x[1] == 0.0f)
                for (float v : dq)
                    CHECK(v == 0.0f);
            if (x[0] == -0.75f && x[1] == -0.75f)
                for (float v : dq)
                    CHECK(v == Approx(-0.75f).epsilon(0.01));
        }
}

TEST_CASE("K-quant scalar kernels equal fp32 dots of the decoded weights", "[quant_kquants]") {
    const KernelTable ref = scalar_table();
    for (DType t : kTypes) {
        CAPTURE(dtype_name(t));
        const int64_t cols = 1024;
        const Lanes m(t, cols, 3, 2, 21);
        const auto x = random_values(static_cast<size_t>(cols), 22);
        const Act a = quantize_act(x);
        const auto y = m.run(matvec_of(ref, t), a);
        for (int64_t r = 0; r < 6; ++r) {
            double dot = 0, mag = 0;
            for (int64_t j = 0; j < cols; ++j) {
                const BlockQ8Act &b = a.q[static_cast<size_t>(j / kQ8BlockSize)];
                const double xv = static_cast<double>(b.scale) * b.q[j % kQ8BlockSize];
                const double p = m.decoded[static_cast<size_t>(r * cols + j)] * xv;
                dot += p;
                mag += std::fabs(p);
            }
            CAPTURE(r, dot, mag);
            CHECK(std::fabs(y[static_cast<size_t>(r)] - dot) <= 1e-4 * mag + 1e-30);
        }
    }
}

TEST_CASE("K-quant kernels of the active level equal the scalar ones", "[quant_kquants]") {
    const KernelTable &k = kernel_table();
    const KernelTable ref = scalar_table();
    if (k.level !=
        SimdLevel::Scalar) { // (else this would test the scalar kernels against themselves)
        CHECK(k.matvec_q4_k != ref.matvec_q4_k);
        CHECK(k.matvec_q6_k != ref.matvec_q6_k);
    }
    // The SIMD kernels read 4 or 8 lanes at once (the count depends on the
    // CPU, see matvec_row_streams) and the lanes left over one at a time.
    const int default_streams = matvec_row_streams();
    uint32_t seed = 100;
    for (DType t : kTypes)
        for (int64_t cols : {256, 1024, 2048, 5120}) {
            const auto x = random_values(static_cast<size_t>(cols), seed++);
            const Act a = quantize_act(x);
            for (int64_t lanes : {1, 3, 4, 5, 8, 11}) {
                if (cols >= 2048 && lanes % 4 == 1) continue; // (long rows: fewer shapes)
                const int64_t steps = cols >= 2048 ? 1 : (lanes % 2 ? 3 : 2);
                const Lanes m(t, cols, lanes, steps, seed++);
                const auto want = m.run(matvec_of(ref, t), a);
                for (int streams : {4, 8}) {
                    set_matvec_row_streams(streams);
                    CAPTURE(dtype_name(t), cols, lanes, steps, streams);
                    const auto got = m.run(matvec_of(k, t), a);
                    for (size_t r = 0; r < want.size(); ++r) {
                        // Bound by the row's sum of |products|: only fp32 rounding differs.
                        double mag = 0;
                        for (int64_t j = 0; j < cols; ++j)
                            mag += std::fabs(static_cast<double>(
                                m.decoded[r * static_cast<size_t>(cols) + static_cast<size_t>(j)] *
                                x[static_cast<size_t>(j)]));
                        CAPTURE(r, want[r], got[r]);
                        REQUIRE(std::fabs(got[r] - want[r]) <= 2e-5 * mag + 1e-30);
                    }
                }
            }
        }
    set_matvec_row_streams(default_streams);
}

TEST_CASE("a K-quant row's product does not depend on the rows read with it", "[quant_kquants]") {
    const KernelTable &k = kernel_table();
    const int default_streams = matvec_row_streams();
    for (DType t : kTypes) {
        const int64_t cols = 512;
        const Act a = quantize_act(random_values(static_cast<size_t>(cols), 7));
        // The same 8 rows, as 8 lanes of one step and as one lane of 8 steps.
        const Lanes together(t, cols, 8, 1, 40), alone(t, cols, 1, 8, 40);
        REQUIRE(together.bytes == alone.bytes);
        for (int streams : {4, 8}) {
            set_matvec_row_streams(streams);
            CAPTURE(dtype_name(t), streams);
            CHECK(together.run(matvec_of(k, t), a) == alone.run(matvec_of(k, t), a));
        }
    }
    set_matvec_row_streams(default_streams);
}

TEST_CASE("K-quant widening equals dequantize_row exactly", "[quant_kquants]") {
    const KernelTable &k = kernel_table();
    for (DType t : kTypes)
        for (int64_t cols : {256, 1280}) {
            CAPTURE(dtype_name(t), cols);
            const Lanes m(t, cols, 1, 5, 300);
            std::vector<float> out(static_cast<size_t>(5 * cols), NAN);
            widen_of(k, t)(m.bytes.data(), m.stride, cols, out.data(), 5);
            REQUIRE(std::memcmp(out.data(), m.decoded.data(), out.size() * 4) == 0);
        }
}
