// The block types' int8 form (quant_blocks.h) and the prefill it feeds:
// the form holds the rows' values exactly, and where the table has the int8
// GEMM a batch's products equal each token's decode product.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/kernel_table.h"
#include "kernels/kernels.h"
#include "kernels/quant_blocks.h"

using namespace llm;

namespace {

const DType kTypes[] = {DType::Q4_0, DType::Q4_1, DType::Q5_0,
                        DType::Q5_1, DType::Q4_K, DType::Q5_K};

std::vector<float> gaussian(std::mt19937 &rng, int64_t n, float sd) {
    std::normal_distribution<float> dist(0.0f, sd);
    std::vector<float> v(static_cast<size_t>(n));
    for (float &x : v)
        x = dist(rng);
    return v;
}

struct Rows {
    std::vector<uint8_t> data;
    Matrix m;
};

Rows random_rows(std::mt19937 &rng, DType t, int64_t rows, int64_t cols) {
    Rows out;
    const size_t row_bytes = dtype_row_bytes(t, cols);
    out.data.resize(row_bytes * static_cast<size_t>(rows));
    for (int64_t r = 0; r < rows; ++r) {
        const std::vector<float> w = gaussian(rng, cols, 0.05f);
        quantize_row_blocks(t, w.data(), out.data.data() + row_bytes * static_cast<size_t>(r),
                            cols);
    }
    out.m.data = out.data.data();
    out.m.type = t;
    out.m.rows = rows;
    out.m.cols = cols;
    return out;
}

} // namespace

TEST_CASE("int8 form: scale x code + offset is each value exactly", "[quant][int8_form]") {
    std::mt19937 rng(5);
    const int64_t cols = 512;
    CHECK_FALSE(has_int8_form(DType::Q6_K));
    CHECK_FALSE(has_int8_form(DType::Q8_0));
    for (DType t : kTypes) {
        INFO(dtype_name(t));
        REQUIRE(has_int8_form(t));
        Rows w = random_rows(rng, t, 3, cols);
        std::vector<uint8_t> form(static_cast<size_t>(int8_form_row_bytes(cols)));
        std::vector<float> want(static_cast<size_t>(cols));
        for (int64_t r = 0; r < 3; ++r) {
            int8_form_row(t, w.m.row(r), form.data(), cols);
            dequantize_row_blocks(t, w.m.row(r), want.data(), cols);
            const float *scales = reinterpret_cast<const float *>(form.data());
            const float *offsets = scales + cols / 32;
            const int8_t *q = reinterpret_cast<const int8_t *>(form.data() + cols / 32 * 8);
            int wrong = 0;
            for (int64_t j = 0; j < cols; ++j)
                wrong += scales[j / 32] * static_cast<float>(q[j]) + offsets[j / 32] !=
                         want[static_cast<size_t>(j)];
            CHECK(wrong == 0);
        }
    }
}

TEST_CASE("int8 form: a batch's products equal each token's decode product", "[quant][int8_form]") {
    std::mt19937 rng(9);
    const int64_t rows = 29, cols = 768; // rows not a multiple of any tile
    for (DType t : kTypes) {
        INFO(dtype_name(t));
        Rows w = random_rows(rng, t, rows, cols);
        for (int64_t n_tokens : {2, 17, 40}) {
            INFO("tokens " << n_tokens);
            const std::vector<float> x = gaussian(rng, n_tokens * cols, 1.0f);
            std::vector<float> y(static_cast<size_t>(n_tokens * rows));
            matmul(w.m, x.data(), n_tokens, y.data(), nullptr);
            std::vector<float> wd(static_cast<size_t>(cols));
            for (int64_t tok = 0; tok < n_tokens; ++tok) {
                std::vector<float> alone(static_cast<size_t>(rows));
                matmul(w.m, x.data() + tok * cols, 1, alone.data(), nullptr);
                for (int64_t r = 0; r < rows; ++r) {
                    dequantize_row_blocks(t, w.m.row(r), wd.data(), cols);
                    double mag = 0.0;
                    for (int64_t j = 0; j < cols; ++j)
                        mag += std::fabs(static_cast<double>(wd[static_cast<size_t>(j)]) *
                                         x[static_cast<size_t>(tok * cols + j)]);
                    const float got = y[static_cast<size_t>(tok * rows + r)];
                    // Without the int8 GEMM the batch widens the rows and
                    // meets fp32 activations: within the activations'
                    // quantization error of decode.
                    const double tol = kernel_table().gemm_q8_scaled ? 1e-5 : 2e-2;
                    CHECK(std::fabs(got - alone[static_cast<size_t>(r)]) <= tol * mag);
                }
            }
        }
    }
}
