#include "support/test_support.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace test {

std::string shared_path(const std::string &relative) {
    const char *env = std::getenv("LLM_SHARED_DIR");
    std::string root = env && *env ? env : LLM_SHARED_DIR;
    return root + "/" + relative;
}

std::string read_file(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::ostringstream os;
    os << in.rdbuf();
    return os.str();
}

nlohmann::json read_json(const std::string &path) {
    return nlohmann::json::parse(read_file(path));
}

void write_file(const std::string &path, const std::string &bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw std::runtime_error("cannot write " + path);
}

namespace {
// The folders temp_dir() made, removed when the test program exits. Some
// tests make one per generated case (thousands per run), so leaving them to
// the OS filled /tmp. remove_all deletes symlinks, not what they point at.
struct TempDirs {
    std::mutex mu;
    std::vector<std::string> paths;
    ~TempDirs() {
        if (const char *keep = std::getenv("LLM_TEST_KEEP_TMP"); keep && *keep) return;
        for (const auto &p : paths) {
            std::error_code ec;
            std::filesystem::remove_all(p, ec);
        }
    }
};
TempDirs &temp_dirs() {
    static TempDirs dirs;
    return dirs;
}
} // namespace

std::string temp_dir() {
    TempDirs &dirs = temp_dirs();
    std::string tmpl = "/tmp/llm-test-XXXXXX";
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    std::lock_guard<std::mutex> lock(dirs.mu);
    dirs.paths.push_back(tmpl);
    return tmpl;
}

std::vector<LogitsRow> read_llama2c_logits(const std::string &path) {
    std::string b = read_file(path);
    if (b.size() < 16 || b.compare(0, 4, "LGT1") != 0) throw std::runtime_error("bad LGT1 file");
    uint32_t vocab, rows;
    std::memcpy(&vocab, b.data() + 4, 4);
    std::memcpy(&rows, b.data() + 8, 4);
    std::vector<LogitsRow> out;
    size_t off = 16;
    for (uint32_t r = 0; r < rows; ++r) {
        LogitsRow row;
        std::memcpy(&row.pos, b.data() + off, 4);
        std::memcpy(&row.token, b.data() + off + 4, 4);
        row.logits.resize(vocab);
        std::memcpy(row.logits.data(), b.data() + off + 8, vocab * 4);
        off += 8 + vocab * 4;
        out.push_back(std::move(row));
    }
    return out;
}

std::vector<std::vector<float>> read_f32_rows(const std::string &path, size_t n_vocab) {
    std::string b = read_file(path);
    std::vector<std::vector<float>> rows(b.size() / (4 * n_vocab));
    for (size_t r = 0; r < rows.size(); ++r) {
        rows[r].resize(n_vocab);
        std::memcpy(rows[r].data(), b.data() + r * n_vocab * 4, n_vocab * 4);
    }
    return rows;
}

float max_abs_diff(const float *a, const float *b, size_t n) {
    float m = 0.0f;
    for (size_t i = 0; i < n; ++i)
        m = std::fmax(m, std::fabs(a[i] - b[i]));
    return m;
}

} // namespace test
