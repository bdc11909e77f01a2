// Helpers shared by the tests: where the shared/ data lives, and readers for
// the golden files (llama2.c logits records, JSON).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace test {

// Path of a file under shared/ (models/..., golden/...).
std::string shared_path(const std::string &relative);
std::string read_file(const std::string &path);
nlohmann::json read_json(const std::string &path);
void write_file(const std::string &path, const std::string &bytes);
// A fresh temporary folder, removed with its contents when the test program
// exits (kept if LLM_TEST_KEEP_TMP is set, to look at after a failure).
std::string temp_dir();

// One record of a llama2.c golden logits file (LGT1).
struct LogitsRow {
    int32_t pos;
    int32_t token;
    std::vector<float> logits;
};
std::vector<LogitsRow> read_llama2c_logits(const std::string &path);

// Raw little-endian float32 rows of `n_vocab` values (qwen2 goldens).
std::vector<std::vector<float>> read_f32_rows(const std::string &path, size_t n_vocab);

float max_abs_diff(const float *a, const float *b, size_t n);

} // namespace test
