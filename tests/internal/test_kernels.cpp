// Every kernel of kernels/kernels.h (and the quantization and float
// conversions beside it) against a naive double-precision version, over
// several sizes including odd ones. Only the public kernel signatures are
// used, so the tests hold for any faster implementation behind them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernels/float_convert.h"
#include "kernels/kernels.h"
#include "kernels/quant.h"
#include "kernels/thread_pool.h"

using namespace llm;

namespace {

constexpr double kEps = 1.0 / (1 << 24); // unit roundoff of fp32

std::vector<float> random_floats(size_t n, uint32_t seed, float scale = 1.0f) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> d(-scale, scale);
    std::vector<float> v(n);
    for (float &x : v)
        x = d(rng);
    return v;
}

// Independent decoders of the 16-bit formats (via double arithmetic).
double bf16_value(uint16_t h) {
    uint32_t bits = static_cast<uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

double f16_value(uint16_t h) {
    const int sign = h >> 15 ? -1 : 1;
    const int exp = (h >> 10) & 0x1f;
    const int man = h & 0x3ff;
    if (exp == 0) return sign * std::ldexp(static_cast<double>(man), -24);
    if (exp == 31)
        return man ? std::numeric_limits<double>::quiet_NaN()
                   : sign * std::numeric_limits<double>::infinity();
    return sign * std::ldexp(1.0 + man / 1024.0, exp - 15);
}

// A weight matrix of `type` built from fp32 values, plus those values as
// the kernel must see them (after rounding to the type), in double.
struct TestMatrix {
    Matrix m;
    std::vector<uint8_t> storage;
    std::vector<double> value; // rows x cols
};

TestMatrix make_matrix(DType type, int64_t rows, int64_t cols, uint32_t seed) {
    TestMatrix t;
    const auto src = random_floats(static_cast<size_t>(rows * cols), seed);
    t.m = Matrix{nullptr, type, rows, cols};
    t.storage.resize(t.m.bytes());
    t.value.resize(src.size());
    for (int64_t i = 0; i < rows; ++i) {
        uint8_t *row = t.storage.data() + static_cast<size_t>(i) * t.m.row_bytes();
        const float *s = &src[static_cast<size_t>(i * cols)];
        double *v = &t.value[static_cast<size_t>(i * cols)];
        switch (type) {
        case DType::F32:
            std::memcpy(row, s, static_cast<size_t>(cols) * 4);
            for (int64_t j = 0; j < cols; ++j)
                v[j] = s[j];
            break;
        case DType::BF16:
        case DType::F16:
            for (int64_t j = 0; j < cols; ++j) {
                uint16_t h = type == DType::BF16 ? f32_to_bf16(s[j]) : f32_to_f16(s[j]);
                std::memcpy(row + 2 * j, &h, 2);
                v[j] = type == DType::BF16 ? bf16_value(h) : f16_value(h);
            }
            break;
        case DType::Q8_0: {
            auto *blocks = reinterpret_cast<BlockQ8_0 *>(row);
            quantize_row_q8_0(s, blocks, cols);
            for (int64_t j = 0; j < cols; ++j)
                v[j] = static_cast<double>(blocks[j / kQ8BlockSize].q[j % kQ8BlockSize]) *
                       blocks[j / kQ8BlockSize].scale;
            break;
        }
        }
    }
    t.m.data = t.storage.data();
    return t;
}

// |computed - exact| for a sum of n products, within the classic bound
// gamma_n * sum|terms| (any summation order), plus fp32 rounding of the
// result.
void check_sum(double got, double exact, double abs_terms, int64_t n) {
    const double tol = 2.0 * static_cast<double>(n + 2) * kEps * abs_terms + 1e-30;
    INFO("got " << got << " exact " << exact << " tol " << tol);
    CHECK(std::fabs(got - exact) <= tol);
}

} // namespace

TEST_CASE("matmul equals a double-precision product for every weight type", "[kernels]") {
    ThreadPool pool3(3);
    struct Shape {
        int64_t rows, cols;
    };
    const Shape any_cols[] = {{1, 1}, {3, 7}, {17, 33}, {64, 64}, {5, 255}, {40, 1000}};
    const Shape q8_cols[] = {{1, 32}, {3, 64}, {17, 96}, {33, 160}, {8, 1024}};
    for (DType type : {DType::F32, DType::BF16, DType::F16, DType::Q8_0}) {
        const auto &shapes = type == DType::Q8_0
                                 ? std::vector<Shape>(std::begin(q8_cols), std::end(q8_cols))
                                 : std::vector<Shape>(std::begin(any_cols), std::end(any_cols));
        for (const Shape &sh : shapes) {
            for (int64_t n_tokens : {1, 2, 5}) {
                for (ThreadPool *pool : {static_cast<ThreadPool *>(nullptr), &pool3}) {
                    INFO(dtype_name(type) << " " << sh.rows << "x" << sh.cols << " tokens "
                                          << n_tokens << (pool ? " pool" : ""));
                    auto w = make_matrix(type, sh.rows, sh.cols, 7);
                    auto x = random_floats(static_cast<size_t>(n_tokens * sh.cols), 11);
                    std::vector<float> y(static_cast<size_t>(n_tokens * sh.rows), NAN);
                    matmul(w.m, x.data(), n_tokens, y.data(), pool);
                    for (int64_t t = 0; t < n_tokens; ++t)
                        for (int64_t i = 0; i < sh.rows; ++i) {
                            double exact = 0, abs_terms = 0;
                            for (int64_t j = 0; j < sh.cols; ++j) {
                                double term = w.value[static_cast<size_t>(i * sh.cols + j)] *
                                              x[static_cast<size_t>(t * sh.cols + j)];
                                exact += term;
                                abs_terms += std::fabs(term);
                            }
                            check_sum(y[static_cast<size_t>(t * sh.rows + i)], exact, abs_terms,
                                      sh.cols);
                        }
                }
            }
        }
    }
}

TEST_CASE("matrix_row_f32 widens a row exactly", "[kernels]") {
    for (DType type : {DType::F32, DType::BF16, DType::F16, DType::Q8_0}) {
        const int64_t cols = type == DType::Q8_0 ? 96 : 37;
        auto w = make_matrix(type, 5, cols, 3);
        for (int64_t r : {0, 2, 4}) {
            std::vector<float> out(static_cast<size_t>(cols));
            matrix_row_f32(w.m, r, out.data());
            for (int64_t j = 0; j < cols; ++j) {
                INFO(dtype_name(type) << " row " << r << " col " << j);
                // Q8_0's q * scale is one fp32 product: exact up to rounding.
                CHECK(std::fabs(out[static_cast<size_t>(j)] -
                                w.value[static_cast<size_t>(r * cols + j)]) <=
                      kEps * std::fabs(w.value[static_cast<size_t>(r * cols + j)]));
            }
        }
    }
}

TEST_CASE("dot_f32 and add_inplace / add_bias", "[kernels]") {
    for (int64_t n : {1, 2, 3, 7, 8, 15, 16, 17, 64, 100, 1001}) {
        INFO("n " << n);
        auto a = random_floats(static_cast<size_t>(n), 1),
             b = random_floats(static_cast<size_t>(n), 2);
        double exact = 0, abs_terms = 0;
        for (int64_t i = 0; i < n; ++i) {
            exact += static_cast<double>(a[i]) * b[i];
            abs_terms += std::fabs(static_cast<double>(a[i]) * b[i]);
        }
        check_sum(dot_f32(a.data(), b.data(), n), exact, abs_terms, n);

        auto sum = a;
        add_inplace(sum.data(), b.data(), n);
        for (int64_t i = 0; i < n; ++i)
            CHECK(sum[i] == a[i] + b[i]); // one correctly rounded addition
        auto biased = a;
        add_bias(biased.data(), b.data(), n);
        CHECK(biased == sum);
    }
}

TEST_CASE("rmsnorm, also in place", "[kernels]") {
    for (int64_t n : {1, 2, 7, 64, 172, 1000}) {
        for (float eps : {1e-5f, 1e-6f}) {
            INFO("n " << n << " eps " << eps);
            auto x = random_floats(static_cast<size_t>(n), 5, 3.0f);
            auto w = random_floats(static_cast<size_t>(n), 6, 2.0f);
            double ss = 0;
            for (float v : x)
                ss += static_cast<double>(v) * v;
            const double inv = 1.0 / std::sqrt(ss / static_cast<double>(n) + eps);
            std::vector<float> out(static_cast<size_t>(n));
            rmsnorm(out.data(), x.data(), w.data(), n, eps);
            auto in_place = x;
            rmsnorm(in_place.data(), in_place.data(), w.data(), n, eps);
            for (int64_t i = 0; i < n; ++i) {
                const double exact = w[i] * x[i] * inv;
                CHECK(std::fabs(out[i] - exact) <= 4.0 * (n + 4) * kEps * std::fabs(exact) + 1e-30);
                CHECK(in_place[i] == out[i]);
            }
        }
    }
}

TEST_CASE("softmax is stable and sums to one", "[kernels]") {
    for (int64_t n : {1, 2, 3, 8, 33, 512, 1000}) {
        for (float scale : {1.0f, 30.0f, 200.0f}) { // large logits must not overflow
            INFO("n " << n << " scale " << scale);
            auto x = random_floats(static_cast<size_t>(n), 9, scale);
            const double mx = *std::max_element(x.begin(), x.end());
            double sum = 0;
            for (float v : x)
                sum += std::exp(static_cast<double>(v) - mx);
            auto p = x;
            softmax(p.data(), n);
            double total = 0;
            for (int64_t i = 0; i < n; ++i) {
                const double exact = std::exp(static_cast<double>(x[i]) - mx) / sum;
                // exp to an ulp or two, the sum to gamma_n.
                CHECK(std::fabs(p[i] - exact) <= 2.0 * (n + 4) * kEps * exact + 1e-38);
                total += p[i];
            }
            CHECK(std::fabs(total - 1.0) < 1e-5);
        }
    }
}

TEST_CASE("silu_mul", "[kernels]") {
    for (int64_t n : {1, 5, 16, 17, 172, 1000}) {
        auto a = random_floats(static_cast<size_t>(n), 12, 12.0f);
        auto b = random_floats(static_cast<size_t>(n), 13, 2.0f);
        a[0] = -100.0f; // exp overflow in a naive form must still give ~0
        auto out = a;
        silu_mul(out.data(), b.data(), n);
        for (int64_t i = 0; i < n; ++i) {
            const double v = a[i];
            const double exact = v / (1.0 + std::exp(-v)) * b[i];
            INFO("a " << a[i] << " b " << b[i]);
            CHECK(std::fabs(out[i] - exact) <= 1e-5 * std::fabs(exact) + 1e-30);
        }
    }
}

TEST_CASE("rope_angles: pos * theta^(-2i/head_dim)", "[kernels]") {
    for (int64_t hd : {2, 8, 16, 64, 128}) {
        for (float theta : {10000.0f, 1000000.0f}) {
            for (int32_t pos : {0, 1, 7, 100, 511, 4095}) {
                std::vector<float> cs(static_cast<size_t>(hd));
                rope_angles(cs.data(), hd, pos, theta);
                for (int64_t i = 0; i < hd / 2; ++i) {
                    const double angle = pos * std::pow(static_cast<double>(theta),
                                                        -2.0 * i / static_cast<double>(hd));
                    // fp32 angle arithmetic: error grows with the angle.
                    const double tol = 8 * kEps * (angle + 1);
                    INFO("hd " << hd << " theta " << theta << " pos " << pos << " i " << i);
                    CHECK(std::fabs(cs[2 * i] - std::cos(angle)) <= tol);
                    CHECK(std::fabs(cs[2 * i + 1] - std::sin(angle)) <= tol);
                }
            }
        }
    }
}

TEST_CASE("rope rotates (2i, 2i+1) or (i, i + head_dim/2) pairs", "[kernels]") {
    for (bool interleaved : {true, false}) {
        for (int64_t hd : {2, 4, 8, 64}) {
            for (int64_t heads : {1, 3}) {
                INFO((interleaved ? "interleaved" : "half-split")
                     << " hd " << hd << " heads " << heads);
                std::vector<float> cs(static_cast<size_t>(hd));
                rope_angles(cs.data(), hd, 37, 10000.0f);
                auto x = random_floats(static_cast<size_t>(hd * heads), 21);
                auto y = x;
                rope(y.data(), heads, hd, cs.data(), interleaved);
                for (int64_t h = 0; h < heads; ++h)
                    for (int64_t i = 0; i < hd / 2; ++i) {
                        const int64_t ia = h * hd + (interleaved ? 2 * i : i);
                        const int64_t ib = h * hd + (interleaved ? 2 * i + 1 : i + hd / 2);
                        const double c = cs[2 * i], s = cs[2 * i + 1];
                        const double ea = x[ia] * c - x[ib] * s, eb = x[ia] * s + x[ib] * c;
                        CHECK(std::fabs(y[ia] - ea) <=
                              4 * kEps * (std::fabs(x[ia]) + std::fabs(x[ib])));
                        CHECK(std::fabs(y[ib] - eb) <=
                              4 * kEps * (std::fabs(x[ia]) + std::fabs(x[ib])));
                    }
            }
        }
    }
}

TEST_CASE("quantize_row_q8_0: scale = max|x|/127, each value within half a step", "[kernels]") {
    for (int64_t n : {32, 64, 96, 1024}) {
        auto x = random_floats(static_cast<size_t>(n), 31, 4.0f);
        std::fill_n(x.begin() + 32 * 0, 32, 0.0f); // an all-zero block
        if (n > 32) x[40] = -9.5f;                 // a block ruled by a negative value
        std::vector<BlockQ8_0> q(static_cast<size_t>(n / kQ8BlockSize));
        quantize_row_q8_0(x.data(), q.data(), n);
        for (int64_t b = 0; b < n / kQ8BlockSize; ++b) {
            double amax = 0;
            for (int j = 0; j < kQ8BlockSize; ++j)
                amax = std::max(amax, std::fabs(static_cast<double>(x[b * kQ8BlockSize + j])));
            INFO("n " << n << " block " << b);
            CHECK(std::fabs(q[b].scale - amax / 127.0) <= kEps * amax / 127.0);
            int max_q = 0;
            for (int j = 0; j < kQ8BlockSize; ++j) {
                const double v = x[b * kQ8BlockSize + j];
                // Half a step, plus the rounding of x * (1 / scale) in fp32.
                CHECK(std::fabs(q[b].q[j] * static_cast<double>(q[b].scale) - v) <=
                      (0.5 + 1e-4) * q[b].scale + 1e-30);
                max_q = std::max(max_q, std::abs(static_cast<int>(q[b].q[j])));
            }
            CHECK(max_q == (amax > 0 ? 127 : 0));
        }
    }
}

namespace {

// The nearest value of a 16-bit format to x, ties to the even encoding,
// found by search over every finite encoding: the reference for rounding.
template <typename Decode> uint16_t nearest(double x, Decode decode, uint16_t max_finite) {
    const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
    const double a = std::fabs(x);
    uint16_t lo = 0, hi = max_finite; // decode is monotonic on [0, max_finite]
    if (a >= decode(max_finite)) {
        // Beyond the largest finite value: round to it or to infinity, whose
        // "value" for rounding is one ulp further.
        const double ulp = decode(max_finite) - decode(static_cast<uint16_t>(max_finite - 1));
        const double mid = decode(max_finite) + ulp / 2;
        return static_cast<uint16_t>(sign | (a < mid ? max_finite : max_finite + 1));
    }
    while (hi - lo > 1) {
        uint16_t m = static_cast<uint16_t>((lo + hi) / 2);
        (decode(m) <= a ? lo : hi) = m;
    }
    const double dl = a - decode(lo), dh = decode(hi) - a;
    uint16_t pick = dl < dh ? lo : dh < dl ? hi : (lo % 2 == 0 ? lo : hi);
    return static_cast<uint16_t>(sign | pick);
}

std::vector<float> probe_floats() {
    std::vector<float> v = {0.0f,
                            -0.0f,
                            1.0f,
                            -1.0f,
                            65504.0f,
                            65519.0f,
                            65520.0f,
                            1e5f,
                            std::numeric_limits<float>::max(),
                            std::numeric_limits<float>::min(),
                            std::numeric_limits<float>::denorm_min(),
                            5.9604645e-8f,
                            2.9802322e-8f,
                            6.1035156e-5f,
                            3.3895314e38f,
                            3.3961e38f};
    std::mt19937 rng(77);
    std::uniform_int_distribution<uint32_t> bits;
    while (v.size() < 200000) {
        uint32_t b = bits(rng);
        float f;
        std::memcpy(&f, &b, 4);
        if (std::isfinite(f)) v.push_back(f);
    }
    // Exact halfway cases: midpoints between neighbouring 16-bit values.
    for (uint32_t h = 0; h < 0x7c00; h += 97)
        v.push_back(static_cast<float>(
            (f16_value(static_cast<uint16_t>(h)) + f16_value(static_cast<uint16_t>(h + 1))) / 2));
    for (uint32_t h = 0; h < 0x7f80; h += 101) {
        uint32_t b = (h << 16) | 0x8000u; // exactly between bf16 h and h + 1
        float f;
        std::memcpy(&f, &b, 4);
        v.push_back(f);
    }
    return v;
}

} // namespace

TEST_CASE("bf16: exact round trip, round to nearest even, NaN stays NaN", "[kernels][float]") {
    for (uint32_t h = 0; h < 0x10000; ++h) {
        const float f = bf16_to_f32(static_cast<uint16_t>(h));
        if (std::isnan(f)) {
            CHECK(std::isnan(bf16_to_f32(f32_to_bf16(f))));
            continue;
        }
        REQUIRE(f32_to_bf16(f) == h);
    }
    for (float f : probe_floats()) {
        INFO("f = " << f);
        CHECK(f32_to_bf16(f) == nearest(f, bf16_value, 0x7f7f));
    }
    CHECK(f32_to_bf16(std::numeric_limits<float>::infinity()) == 0x7f80);
    CHECK(std::isnan(bf16_to_f32(f32_to_bf16(std::numeric_limits<float>::quiet_NaN()))));
    // A NaN whose payload sits only in the low bits must not become infinity.
    uint32_t low_nan = 0x7f800001u;
    float f;
    std::memcpy(&f, &low_nan, 4);
    CHECK(std::isnan(bf16_to_f32(f32_to_bf16(f))));
}

TEST_CASE("f16: exact decode and round trip, round to nearest even, overflow to inf",
          "[kernels][float]") {
    for (uint32_t h = 0; h < 0x10000; ++h) {
        const auto bits = static_cast<uint16_t>(h);
        const float f = f16_to_f32(bits);
        const double exact = f16_value(bits);
        if (std::isnan(exact)) {
            CHECK(std::isnan(f));
            CHECK(std::isnan(f16_to_f32(f32_to_f16(f))));
            continue;
        }
        REQUIRE(static_cast<double>(f) == exact);
        REQUIRE(f32_to_f16(f) == bits);
    }
    for (float f : probe_floats()) {
        INFO("f = " << f);
        CHECK(f32_to_f16(f) == nearest(f, f16_value, 0x7bff));
    }
    CHECK(f32_to_f16(std::numeric_limits<float>::infinity()) == 0x7c00);
    CHECK(f32_to_f16(-std::numeric_limits<float>::infinity()) == 0xfc00);
}
