// The kernels of the active SIMD level (CTest runs this file once per level,
// with LLM_SIMD set) against straightforward double-precision references
// written here, on shapes that hit every tile and tail case.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "kernels/float_convert.h"
#include "kernels/kernel_table.h"
#include "kernels/kernels.h"
#include "kernels/quant.h"
#include "kernels/thread_pool.h"
#include "model/convert_weights.h"

using namespace llm;

namespace {

std::vector<float> random_floats(size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> d(lo, hi);
    std::vector<float> v(n);
    for (float &x : v)
        x = d(gen);
    return v;
}

// A rows x cols matrix of `type` built from fp32 values, with its decoded
// fp32 values (what the kernels should compute with).
struct TestMatrix {
    std::vector<uint8_t> bytes;
    Matrix m;
    std::vector<float> decoded;
};

float decode(const uint8_t *row, DType t, int64_t cols, int64_t j) {
    uint16_t h;
    switch (t) {
    case DType::F32: {
        float f;
        std::memcpy(&f, row + 4 * j, 4);
        return f;
    }
    case DType::BF16: std::memcpy(&h, row + 2 * j, 2); return bf16_to_f32(h);
    case DType::F16: std::memcpy(&h, row + 2 * j, 2); return f16_to_f32(h);
    case DType::Q8_0: {
        // The scales first, then the quants (quant.h); j < cols.
        std::memcpy(&h, row + 2 * (j / kQ8BlockSize), 2);
        return static_cast<int8_t>(row[q8_0_quants_offset(cols) + j]) * f16_to_f32(h);
    }
    }
    return 0.0f;
}

TestMatrix make_matrix(DType t, int64_t rows, int64_t cols, uint32_t seed) {
    TestMatrix tm;
    tm.m = Matrix{nullptr, t, rows, cols};
    tm.bytes.resize(tm.m.bytes());
    auto values = random_floats(static_cast<size_t>(rows * cols), seed);
    for (int64_t r = 0; r < rows; ++r)
        encode_row(&values[static_cast<size_t>(r * cols)], cols, t,
                   tm.bytes.data() + r * tm.m.row_bytes());
    tm.m.data = tm.bytes.data();
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < cols; ++j)
            tm.decoded.push_back(decode(tm.m.row(r), t, cols, j));
    return tm;
}

// The activation quantization as specified in kernel_table.h.
std::vector<BlockQ8Act> quantize_reference(const float *x, int64_t n) {
    std::vector<BlockQ8Act> out(static_cast<size_t>(n / kQ8BlockSize));
    for (size_t b = 0; b < out.size(); ++b) {
        float amax = 0.0f;
        for (int j = 0; j < kQ8BlockSize; ++j)
            amax = std::max(amax, std::fabs(x[b * kQ8BlockSize + j]));
        const float scale = amax / 127.0f;
        const float inv = scale != 0.0f ? 1.0f / scale : 0.0f;
        out[b].scale = scale;
        for (int j = 0; j < kQ8BlockSize; ++j)
            out[b].q[j] = static_cast<int8_t>(std::nearbyint(x[b * kQ8BlockSize + j] * inv));
    }
    return out;
}

// Y = W X in double, and the scale of its rounding error (sum |w x|).
void reference_matmul(const TestMatrix &tm, const std::vector<float> &x, int64_t n,
                      std::vector<double> &y, std::vector<double> &mag) {
    const int64_t rows = tm.m.rows, cols = tm.m.cols;
    y.assign(static_cast<size_t>(n * rows), 0.0);
    mag.assign(y.size(), 0.0);
    for (int64_t t = 0; t < n; ++t) {
        const float *xt = &x[static_cast<size_t>(t * cols)];
        // Q8_0 weights meet quantized activations in decode, and in a batch
        // where the level has an int8 GEMM.
        std::vector<BlockQ8Act> xq;
        if ((n == 1 || kernel_table().gemm_q8_0) && tm.m.type == DType::Q8_0)
            xq = quantize_reference(xt, cols);
        for (int64_t r = 0; r < rows; ++r) {
            double s = 0, m = 0;
            for (int64_t j = 0; j < cols; ++j) {
                const double w = tm.decoded[static_cast<size_t>(r * cols + j)];
                const double v = xq.empty() ? xt[j]
                                            : xq[j / kQ8BlockSize].q[j % kQ8BlockSize] *
                                                  static_cast<double>(xq[j / kQ8BlockSize].scale);
                s += w * v;
                m += std::fabs(w * v);
            }
            y[static_cast<size_t>(t * rows + r)] = s;
            mag[static_cast<size_t>(t * rows + r)] = m;
        }
    }
}

const DType kTypes[] = {DType::F32, DType::BF16, DType::F16, DType::Q8_0};

} // namespace

TEST_CASE("LLM_SIMD selects the kernel level", "[kernels][simd]") {
    const SimdLevel best = detect_simd_level();
    const SimdLevel active = active_simd_level();
    INFO("detected " << simd_level_name(best) << ", active " << simd_level_name(active));
    CHECK(kernel_table().level == active);
    CHECK(static_cast<int>(active) <= static_cast<int>(best));
    const char *env = std::getenv("LLM_SIMD");
    if (!env || !*env) {
        CHECK(active == best);
        return;
    }
    CHECK(simd_level_supported(active));
    // A request this CPU can meet is met exactly; another gets a level below
    // it (AVX-512 CPUs without AVX-VNNI: avx2vnni gives avx2).
    SimdLevel l;
    if (simd_level_from_name(env, l)) {
        if (simd_level_supported(l))
            CHECK(active == l);
        else
            CHECK(static_cast<int>(active) < static_cast<int>(l));
    }
    CHECK(simd_level_supported(SimdLevel::Scalar));
    CHECK(simd_level_supported(best));
}

// CTest runs this executable once per level with `--name simd-<level>` and
// LLM_SIMD=<level> in the environment (tests/CMakeLists.txt). A forced run
// without the variable would silently test the detected level again.
TEST_CASE("simd: the forced level is the one running", "[kernels][simd]") {
    const std::string run = Catch::getCurrentContext().getConfig()->name();
    const std::string prefix = "simd-";
    if (run.compare(0, prefix.size(), prefix) != 0) return; // not a forced run
    const char *env = std::getenv("LLM_SIMD");
    INFO("run " << run);
    REQUIRE(env);
    CHECK(run.substr(prefix.size()) == env);
    // (A level the CPU lacks falls back: "LLM_SIMD selects the kernel level".)
    const std::string active = simd_level_name(active_simd_level());
    SimdLevel l;
    if (simd_level_from_name(env, l) && simd_level_supported(l)) CHECK(active == env);
}

TEST_CASE("matmul matches a double-precision reference for every weight type and shape",
          "[kernels]") {
    ThreadPool pool(3);
    // (Q8_0 kernels take rows' scales 16 blocks at a time: 544 and 1184
    // columns are 17 and 37 blocks. The AMX tiles take rows 16 and 32 at a
    // time in blocks of 256, k in blocks of 1024: 290 x 1088 has a partial
    // tile, a second row block and a second k block. The fp32 GEMM's tiles
    // are 6 rows x 2 vectors of tokens (AVX2) or 4 (AVX-512: 64 tokens): the
    // batch sizes leave 1 to 4 vectors in the last group of tokens.)
    const int64_t shapes[][2] = {{1, 32},  {3, 64}, {4, 96},   {17, 288}, {33, 64},   {64, 160},
                                 {7, 172}, {5, 48}, {9, 1184}, {16, 544}, {290, 1088}};
    for (DType t : kTypes)
        for (const auto &s : shapes) {
            const int64_t rows = s[0], cols = s[1];
            if (!dtype_can_hold(t, cols)) continue;
            auto tm = make_matrix(t, rows, cols, static_cast<uint32_t>(rows * 1000 + cols));
            for (int64_t n : {1, 2, 5, 6, 7, 13, 24, 40, 64, 100}) {
                auto x = random_floats(static_cast<size_t>(n * cols), static_cast<uint32_t>(n));
                std::vector<double> ref, mag;
                reference_matmul(tm, x, n, ref, mag);
                for (ThreadPool *p : {static_cast<ThreadPool *>(nullptr), &pool}) {
                    std::vector<float> y(static_cast<size_t>(n * rows), -1.0f);
                    matmul(tm.m, x.data(), n, y.data(), p);
                    double worst = 0;
                    for (size_t i = 0; i < y.size(); ++i)
                        worst = std::max(worst, std::fabs(y[i] - ref[i]) / (mag[i] + 1e-30));
                    INFO(dtype_name(t)
                         << " " << rows << "x" << cols << " n=" << n << (p ? " pool" : ""));
                    CHECK(worst < 1e-5);
                }
            }
        }
}

TEST_CASE("matmul_group equals separate products, with and without threads", "[kernels]") {
    ThreadPool pool(2);
    for (DType t : kTypes) {
        auto a = make_matrix(t, 40, 64, 1), b = make_matrix(t, 8, 64, 2),
             c = make_matrix(t, 19, 64, 3);
        for (int64_t n : {1, 9}) {
            auto x = random_floats(static_cast<size_t>(n * 64), 4);
            std::vector<float> ya(static_cast<size_t>(n * 40)), yb(static_cast<size_t>(n * 8)),
                yc(static_cast<size_t>(n * 19));
            const MatmulOut outs[] = {{&a.m, ya.data()}, {&b.m, yb.data()}, {&c.m, yc.data()}};
            matmul_group(outs, 3, x.data(), n, &pool);
            for (auto [m, y] :
                 {std::make_pair(&a, &ya), std::make_pair(&b, &yb), std::make_pair(&c, &yc)}) {
                std::vector<float> alone(y->size());
                matmul(m->m, x.data(), n, alone.data(), nullptr);
                INFO(dtype_name(t) << " n=" << n << " rows " << m->m.rows);
                CHECK(alone == *y); // each row is computed the same way wherever it lands
            }
        }
    }
}

TEST_CASE("a row's product does not depend on the rows computed with it", "[kernels]") {
    // Matrix-vector kernels take rows in groups of 4 or 8 streams (see
    // for_row_streams; the count depends on the CPU) and the last few alone;
    // a thread's share decides which path a row takes.
    const int default_streams = matvec_row_streams();
    for (int streams : {4, 8}) {
        set_matvec_row_streams(streams);
        for (DType t : kTypes)
            for (int64_t rows : {8, 19, 37, 64}) {
                auto tm = make_matrix(t, rows, 96, static_cast<uint32_t>(rows));
                auto x = random_floats(96, 5);
                std::vector<float> all(static_cast<size_t>(rows));
                matmul(tm.m, x.data(), 1, all.data(), nullptr);
                for (int64_t r = 0; r < rows; ++r) {
                    const Matrix one{tm.m.row(r), t, 1, tm.m.cols};
                    float y = -1.0f;
                    matmul(one, x.data(), 1, &y, nullptr);
                    INFO(dtype_name(t)
                         << " " << rows << " rows, row " << r << ", " << streams << " streams");
                    CHECK(y == all[static_cast<size_t>(r)]);
                }
            }
    }
    set_matvec_row_streams(default_streams);
}

TEST_CASE("a decode product split over threads equals the product on one", "[kernels][threads]") {
    // With threads, a decode step's rows go out as steps of S lanes plus the
    // rows % S after them (matvec_group); chunks end on any step or single
    // row. Every row count up to 75 puts chunk ends at every place.
    const int default_streams = matvec_row_streams();
    ThreadPool two(2), three(3);
    for (int streams : {4, 8}) {
        set_matvec_row_streams(streams);
        for (DType t : kTypes)
            for (int64_t rows = 1; rows <= 75; ++rows) {
                auto a = make_matrix(t, rows, 64, static_cast<uint32_t>(rows));
                auto b = make_matrix(t, 75 - rows + 3, 64, static_cast<uint32_t>(rows + 100));
                auto x = random_floats(64, 6);
                std::vector<float> ya(static_cast<size_t>(rows)), yb(static_cast<size_t>(b.m.rows));
                const MatmulOut outs[] = {{&a.m, ya.data()}, {&b.m, yb.data()}};
                matmul_group(outs, 2, x.data(), 1, nullptr);
                for (ThreadPool *pool : {&two, &three}) {
                    std::vector<float> pa(ya.size(), -1.0f), pb(yb.size(), -1.0f);
                    const MatmulOut split[] = {{&a.m, pa.data()}, {&b.m, pb.data()}};
                    matmul_group(split, 2, x.data(), 1, pool);
                    INFO(dtype_name(t) << " " << rows << " + " << b.m.rows << " rows, " << streams
                                       << " streams, " << pool->size() << " threads");
                    CHECK(pa == ya);
                    CHECK(pb == yb);
                }
            }
    }
    set_matvec_row_streams(default_streams);
}

TEST_CASE("narrow_f16 rounds and clamps as the scalar conversion does", "[kernels]") {
    // Every kind of value the KV cache's fp16 store can meet, in a count that
    // leaves a tail past the widest vector: fp16 normals, subnormals and ties,
    // the clamp at 65504, infinities, NaN, signed zeros, fp32 subnormals.
    std::vector<float> x = random_floats(200, 13, -70000.0f, 70000.0f);
    auto small = random_floats(100, 14, -7e-5f, 7e-5f); // fp16 subnormal range
    x.insert(x.end(), small.begin(), small.end());
    const float tie = 1.0f + std::ldexp(1.0f, -11); // halfway between two fp16 values
    for (float v : {tie, -tie, 1.0f + 3 * std::ldexp(1.0f, -11), std::ldexp(1.0f, -25),
                    3 * std::ldexp(1.0f, -25), 65504.0f, 65519.0f, 65520.0f, 1e9f, -1e9f, INFINITY,
                    -INFINITY, NAN, 0.0f, -0.0f, 1e-40f, -1e-40f})
        x.push_back(v);
    const int64_t n = static_cast<int64_t>(x.size()) - 3; // a tail of any length
    for (int64_t len : {n, n + 1, n + 2, n + 3}) {
        std::vector<uint8_t> got(static_cast<size_t>(2 * len), 0xee);
        narrow_f16(x.data(), got.data(), len);
        for (int64_t i = 0; i < len; ++i) {
            uint16_t h;
            std::memcpy(&h, &got[static_cast<size_t>(2 * i)], 2);
            INFO("x = " << x[static_cast<size_t>(i)] << ", " << len << " values");
            CHECK(h == f32_to_f16_clamped(x[static_cast<size_t>(i)]));
        }
    }
    CHECK(f32_to_f16_clamped(INFINITY) == 0x7bff); // 65504, not infinity
    CHECK(f32_to_f16_clamped(NAN) == 0x7bff);
    CHECK(f32_to_f16_clamped(tie) == 0x3c00); // ties to even: 1.0
}

TEST_CASE("activation quantization follows the Q8 rule exactly", "[kernels][quant]") {
    auto x = random_floats(32 * 9, 7, -3.0f, 3.0f);
    std::fill(x.begin() + 64, x.begin() + 96, 0.0f); // an all-zero block
    x[5] = 127.0f / 254.0f * 3.0f;                   // near a rounding tie
    std::vector<BlockQ8Act> got(9);
    kernel_table().quantize_act_q8(x.data(), got.data(), 32 * 9);
    auto want = quantize_reference(x.data(), 32 * 9);
    for (size_t b = 0; b < want.size(); ++b) {
        INFO("block " << b);
        CHECK(got[b].scale == want[b].scale);
        CHECK(std::memcmp(got[b].q, want[b].q, kQ8BlockSize) == 0);
    }
}

TEST_CASE("Q8_0 weight blocks round-trip within half a step", "[kernels][quant]") {
    auto x = random_floats(32 * 16, 11, -2.0f, 2.0f);
    std::vector<uint8_t> row(static_cast<size_t>(q8_0_row_bytes(32 * 16)));
    REQUIRE(row.size() == 16 * 34);
    quantize_row_q8_0(x.data(), row.data(), 32 * 16);
    for (size_t b = 0; b < 16; ++b) {
        uint16_t h;
        std::memcpy(&h, &row[2 * b], 2); // the 16 scales come first
        const float scale = f16_to_f32(h);
        float amax = 0;
        for (int j = 0; j < 32; ++j)
            amax = std::max(amax, std::fabs(x[b * 32 + j]));
        CHECK(scale == Approx(amax / 127.0f).epsilon(1e-3));
        for (int j = 0; j < 32; ++j) {
            const int8_t q = static_cast<int8_t>(row[32 + b * 32 + j]);
            CHECK(std::fabs(q * scale - x[b * 32 + j]) <= 0.5f * scale * 1.0001f);
        }
    }
}

TEST_CASE("matrix_row_f32 widens every type", "[kernels]") {
    for (DType t : kTypes) {
        auto tm = make_matrix(t, 5, 96, 21);
        std::vector<float> row(96);
        matrix_row_f32(tm.m, 3, row.data());
        INFO(dtype_name(t));
        CHECK(std::equal(row.begin(), row.end(), tm.decoded.begin() + 3 * 96));
    }
}

TEST_CASE("elementwise kernels match double references", "[kernels]") {
    for (int64_t n : {1, 7, 16, 33, 64, 100, 4864}) {
        INFO("n=" << n);
        auto x = random_floats(static_cast<size_t>(n), 31, -8.0f, 8.0f);
        auto w = random_floats(static_cast<size_t>(n), 32);

        std::vector<float> out(static_cast<size_t>(n));
        rmsnorm(out.data(), x.data(), w.data(), n, 1e-5f);
        double ss = 0;
        for (float v : x)
            ss += double(v) * v;
        const double inv = 1.0 / std::sqrt(ss / n + 1e-5);
        for (int64_t i = 0; i < n; ++i)
            CHECK(out[i] == Approx(w[i] * inv * x[i]).margin(1e-6).epsilon(1e-5));

        std::vector<float> sm = x;
        softmax(sm.data(), n);
        double mx = *std::max_element(x.begin(), x.end()), total = 0;
        for (float v : x)
            total += std::exp(v - mx);
        for (int64_t i = 0; i < n; ++i)
            CHECK(sm[i] == Approx(std::exp(x[i] - mx) / total).margin(1e-9).epsilon(1e-5));

        std::vector<float> a = x;
        silu_mul(a.data(), w.data(), n);
        for (int64_t i = 0; i < n; ++i)
            CHECK(a[i] ==
                  Approx(x[i] / (1 + std::exp(-double(x[i]))) * w[i]).margin(1e-6).epsilon(1e-5));

        std::vector<float> s = x;
        add_inplace(s.data(), w.data(), n);
        for (int64_t i = 0; i < n; ++i)
            CHECK(s[i] == x[i] + w[i]);

        double d = 0, dm = 0;
        for (int64_t i = 0; i < n; ++i) {
            d += double(x[i]) * w[i];
            dm += std::fabs(double(x[i]) * w[i]);
        }
        CHECK(std::fabs(dot_f32(x.data(), w.data(), n) - d) <= 1e-6 * dm + 1e-7);
    }
}

TEST_CASE("exp-based kernels hold at the extremes", "[kernels]") {
    // Large spreads: softmax must not overflow or produce NaN; silu of big
    // negative inputs goes to -0, of big positive ones to x.
    std::vector<float> x = {-1000.0f, -100.0f, -87.0f, -20.0f, 0.0f, 20.0f, 88.0f, 100.0f, 1000.0f};
    std::vector<float> sm = x;
    softmax(sm.data(), static_cast<int64_t>(sm.size()));
    for (size_t i = 0; i + 1 < sm.size(); ++i)
        CHECK(sm[i] == Approx(0.0).margin(1e-30));
    CHECK(sm.back() == Approx(1.0f));
    std::vector<float> ones(x.size(), 1.0f), a = x;
    silu_mul(a.data(), ones.data(), static_cast<int64_t>(a.size()));
    for (size_t i = 0; i < x.size(); ++i) {
        INFO("x=" << x[i]);
        CHECK(std::isfinite(a[i]));
        CHECK(a[i] == Approx(x[i] / (1 + std::exp(-double(x[i])))).margin(1e-6));
    }
}

// Keys and values as a KV cache of `type` holds them: for F16, the fp16
// copies, with k and v rounded to the values those hold.
struct TestKV {
    DType type;
    std::vector<float> k, v;
    std::vector<uint16_t> k16, v16;
    const void *keys() const {
        return type == DType::F16 ? static_cast<const void *>(k16.data()) : k.data();
    }
    const void *values() const {
        return type == DType::F16 ? static_cast<const void *>(v16.data()) : v.data();
    }
};

TestKV make_kv(DType type, size_t n, uint32_t seed) {
    TestKV kv{type, random_floats(n, seed, -2.0f, 2.0f), random_floats(n, seed + 1), {}, {}};
    if (type == DType::F16) {
        kv.k16.resize(n);
        kv.v16.resize(n);
        for (size_t i = 0; i < n; ++i) {
            kv.k16[i] = f32_to_f16(kv.k[i]);
            kv.v16[i] = f32_to_f16(kv.v[i]);
            kv.k[i] = f16_to_f32(kv.k16[i]);
            kv.v[i] = f16_to_f32(kv.v16[i]);
        }
    }
    return kv;
}

// One query head's attention in double: softmax over positions p < n_pos of
// scale * q . k_p, times v_p, where position p of the head's keys and
// values starts at off + p * hd.
std::vector<double> reference_attention(const float *q, const TestKV &kv, int64_t off,
                                        int64_t n_pos, int64_t hd, float scale) {
    std::vector<double> s(static_cast<size_t>(n_pos)), o(static_cast<size_t>(hd), 0.0);
    double mx = -1e300, total = 0;
    for (int64_t p = 0; p < n_pos; ++p) {
        double d = 0;
        for (int64_t i = 0; i < hd; ++i)
            d += double(q[i]) * kv.k[static_cast<size_t>(off + p * hd + i)];
        s[static_cast<size_t>(p)] = d * scale;
        mx = std::max(mx, d * scale);
    }
    for (double &e : s)
        total += (e = std::exp(e - mx));
    for (int64_t p = 0; p < n_pos; ++p)
        for (int64_t i = 0; i < hd; ++i)
            o[static_cast<size_t>(i)] +=
                s[static_cast<size_t>(p)] / total * kv.v[static_cast<size_t>(off + p * hd + i)];
    return o;
}

TEST_CASE("attention_heads matches a double reference", "[kernels]") {
    // 6 query heads over 6 / group KV heads, laid out as the KV cache is
    // ([kv head][position][head_dim], heads head_stride apart); blocks of
    // heads that start and end inside a group, and lone heads. Keys and
    // values in fp32 and in fp16 (the reference reads the fp16 values).
    const int64_t n_heads_all = 6;
    const int64_t blocks[][2] = {{0, 6}, {1, 4}, {5, 1}, {2, 3}};
    for (DType kv_type : {DType::F32, DType::F16})
        for (int64_t group : {1, 2, 3, 6})
            for (int64_t hd : {8, 48, 64, 72, 128})
                for (int64_t n_pos : {1, 3, 17, 200})
                    for (const auto &b : blocks) {
                        const int64_t h0 = b[0], nh = b[1];
                        const int64_t head_stride = n_pos * hd + 5; // room for more positions
                        const auto n_kv = static_cast<size_t>(n_heads_all / group * head_stride);
                        auto q = random_floats(static_cast<size_t>(nh * hd), 41, -2.0f, 2.0f);
                        const TestKV kv = make_kv(kv_type, n_kv, 42);
                        const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
                        std::vector<float> scores(static_cast<size_t>(nh * n_pos)),
                            out(static_cast<size_t>(nh * hd));
                        attention_heads(kv_type, q.data(), kv.keys(), kv.values(), head_stride,
                                        n_pos, hd, h0, nh, group, scale, scores.data(), out.data());
                        for (int64_t h = 0; h < nh; ++h) {
                            const int64_t off = (h0 + h) / group * head_stride;
                            const auto o = reference_attention(&q[static_cast<size_t>(h * hd)], kv,
                                                               off, n_pos, hd, scale);
                            for (int64_t i = 0; i < hd; ++i) {
                                INFO(dtype_name(kv_type)
                                     << " group=" << group << " hd=" << hd << " n_pos=" << n_pos
                                     << " heads " << h0 << "+" << nh << " head " << h
                                     << " i=" << i);
                                CHECK(out[h * hd + i] ==
                                      Approx(o[static_cast<size_t>(i)]).margin(1e-5));
                            }
                        }
                    }
}

TEST_CASE("attention_heads gives a head the same result whichever heads it is read with",
          "[kernels][threads]") {
    // Decode splits the heads over threads, so a block of heads must give
    // each head exactly what the head alone gives: with their own keys and
    // values (group 1), the keys are read as lanes across the block's heads
    // (their queries held in registers where head_dim is 1-4 whole vectors),
    // cut at places that depend on how many heads and positions there are,
    // and the values two heads at a time.
    const int default_streams = matvec_row_streams();
    const int64_t n_heads_all = 7;
    for (int streams : {4, 8}) {
        set_matvec_row_streams(streams);
        for (DType kv_type : {DType::F32, DType::F16})
            for (int64_t hd : {8, 16, 32, 48, 64, 72})
                for (int64_t n_pos : {1, 2, 5, 13, 37}) {
                    const int64_t head_stride = n_pos * hd + 3;
                    const TestKV kv =
                        make_kv(kv_type, static_cast<size_t>(n_heads_all * head_stride), 7);
                    auto q = random_floats(static_cast<size_t>(n_heads_all * hd), 8, -2.0f, 2.0f);
                    const float scale = 0.25f;
                    std::vector<float> scores(static_cast<size_t>(n_heads_all * n_pos));
                    std::vector<float> alone(static_cast<size_t>(n_heads_all * hd));
                    for (int64_t h = 0; h < n_heads_all; ++h)
                        attention_heads(kv_type, &q[static_cast<size_t>(h * hd)], kv.keys(),
                                        kv.values(), head_stride, n_pos, hd, h, 1, 1, scale,
                                        scores.data(), &alone[static_cast<size_t>(h * hd)]);
                    for (int64_t h0 = 0; h0 < n_heads_all; ++h0)
                        for (int64_t nh = 2; h0 + nh <= n_heads_all; ++nh) {
                            std::vector<float> block(static_cast<size_t>(nh * hd), -1.0f);
                            attention_heads(kv_type, &q[static_cast<size_t>(h0 * hd)], kv.keys(),
                                            kv.values(), head_stride, n_pos, hd, h0, nh, 1, scale,
                                            scores.data(), block.data());
                            INFO(dtype_name(kv_type)
                                 << " hd=" << hd << " n_pos=" << n_pos << " heads " << h0 << "+"
                                 << nh << ", " << streams << " streams");
                            CHECK(std::equal(block.begin(), block.end(), alone.begin() + h0 * hd));
                        }
                }
    }
    set_matvec_row_streams(default_streams);
}

TEST_CASE("attention_batch matches a double reference", "[kernels]") {
    // n tokens at positions pos0.., each attending causally to the cache's
    // positions up to its own. Query rows go 64 to a job and positions 256
    // to a block: 1-40 tokens x groups 1-7 give partial and several row
    // blocks, pos0 up to 300 several key blocks, some hidden to the first
    // tokens of a job and visible to its last.
    ThreadPool pool(3);
    const int64_t n_kv = 2;
    for (DType kv_type : {DType::F32, DType::F16})
        for (int64_t group : {1, 3, 7})
            for (int64_t hd : {8, 64})
                for (int64_t n : {2, 9, 40})
                    for (int32_t pos0 : {0, 5, 250, 300}) {
                        const int64_t n_heads = n_kv * group, q_dim = n_heads * hd;
                        const int64_t n_pos = pos0 + n, head_stride = n_pos * hd + 3;
                        auto q = random_floats(static_cast<size_t>(n * q_dim), 51, -2.0f, 2.0f);
                        const TestKV kv =
                            make_kv(kv_type, static_cast<size_t>(n_kv * head_stride), 52);
                        const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
                        for (ThreadPool *p : {static_cast<ThreadPool *>(nullptr), &pool}) {
                            std::vector<float> out(static_cast<size_t>(n * q_dim), -7.0f);
                            attention_batch(kv_type, q.data(), kv.keys(), kv.values(), head_stride,
                                            n, pos0, hd, n_heads, n_kv, scale, out.data(), p);
                            double worst = 0;
                            for (int64_t t = 0; t < n; ++t)
                                for (int64_t h = 0; h < n_heads; ++h) {
                                    const size_t at = static_cast<size_t>(t * q_dim + h * hd);
                                    const auto o =
                                        reference_attention(&q[at], kv, h / group * head_stride,
                                                            pos0 + t + 1, hd, scale);
                                    for (int64_t i = 0; i < hd; ++i)
                                        worst = std::max(
                                            worst, std::fabs(out[at + static_cast<size_t>(i)] -
                                                             o[static_cast<size_t>(i)]));
                                }
                            INFO(dtype_name(kv_type)
                                 << " group=" << group << " hd=" << hd << " n=" << n
                                 << " pos0=" << pos0 << (p ? " pool" : ""));
                            CHECK(worst < 1e-5);
                        }
                    }
}

TEST_CASE("thread pool covers every index once, awake or asleep", "[kernels][threads]") {
    for (int threads : {1, 2, 3, 5}) {
        ThreadPool pool(threads);
        for (int round = 0; round < 40; ++round) {
            const int64_t n = 1 + round * 37 % 1000, grain = 1 + round % 7;
            std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
            std::atomic<bool> bad_chunk{false};
            pool.parallel_for(n, grain, [&](int64_t b, int64_t e, int t) {
                if (b % grain != 0 || t < 0 || t >= threads) bad_chunk = true;
                for (int64_t i = b; i < e; ++i)
                    hits[static_cast<size_t>(i)]++;
            });
            INFO("threads " << threads << " n " << n << " grain " << grain);
            CHECK_FALSE(bad_chunk);
            CHECK(std::all_of(hits.begin(), hits.end(), [](auto &h) { return h == 1; }));
            // Every few rounds let the workers fall asleep before the next job.
            if (round % 8 == 7) std::this_thread::sleep_for(std::chrono::milliseconds(3));
        }
    }
}

// Jobs posted back to back, each a different size, as a transformer layer
// posts them. A worker still holding the previous job's ticket once paired it
// with the next job's size and claimed indices past the old end: they were
// counted into the new job, which then never saw its count reach n (a hang).
TEST_CASE("thread pool: back-to-back jobs of different sizes count exactly their own indices",
          "[kernels][threads]") {
    for (int threads : {2, 3}) {
        ThreadPool pool(threads);
        std::atomic<int64_t> covered{0};
        std::atomic<bool> out_of_range{false};
        int bad_jobs = 0;
        for (int64_t job = 0; job < 100000 && bad_jobs == 0; ++job) {
            const int64_t n = 1 + job * 7919 % 700, grain = 1 + job % 5 * 16;
            covered = 0;
            pool.parallel_for(n, grain, [&](int64_t b, int64_t e, int) {
                if (b < 0 || e > n || b >= e) out_of_range = true;
                covered += e - b;
            });
            if (covered != n || out_of_range) ++bad_jobs;
        }
        INFO("threads " << threads);
        CHECK(bad_jobs == 0);
        CHECK_FALSE(out_of_range);
    }
}
