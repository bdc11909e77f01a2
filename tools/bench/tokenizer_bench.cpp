// llm-tokenizer-bench: encode speed of a tokenizer.json tokenizer on one core.
//
//   llm-tokenizer-bench TOKENIZER_DIR TEXT_FILE... [--mb N]
//
// Concatenates the text files, repeats them up to N MB (default 16), encodes
// the whole text once (no special-token parsing) and prints MB/s. Checks the
// ids decode back to the text, so a fast but wrong tokenizer cannot pass.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/mapped_file.h"
#include "tokenizer/hf_tokenizer.h"

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
// CPU time of this process: unlike wall time it does not grow when other
// processes share the core.
double cpu_seconds() {
    return static_cast<double>(std::clock()) / CLOCKS_PER_SEC;
}
} // namespace

int main(int argc, char **argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s TOKENIZER_DIR TEXT_FILE... [--mb N]\n", argv[0]);
        return 2;
    }
    double mb = 16;
    std::vector<std::string> files;
    for (int i = 2; i < argc; ++i) {
        if (std::strcmp(argv[i], "--mb") == 0 && i + 1 < argc)
            mb = std::atof(argv[++i]);
        else
            files.push_back(argv[i]);
    }
    try {
        const std::string dir = argv[1];
        auto t0 = std::chrono::steady_clock::now();
        double c0 = cpu_seconds();
        std::string config = llm::path_join(dir, "tokenizer_config.json");
        auto tok = llm::load_hf_tokenizer(llm::path_join(dir, "tokenizer.json"),
                                          llm::path_exists(config) ? config : "");
        std::printf("load: %.3f s (cpu %.3f s), vocab %d\n", seconds_since(t0), cpu_seconds() - c0,
                    tok->vocab_size());

        std::string sample;
        for (const std::string &f : files)
            sample += llm::read_text_file(f, size_t{1} << 30) + "\n";
        if (sample.size() < 2) throw std::runtime_error("the text files are empty");
        std::string text;
        while (text.size() < mb * 1e6)
            text += sample;

        t0 = std::chrono::steady_clock::now();
        c0 = cpu_seconds();
        std::vector<int32_t> ids = tok->encode(text, false, false);
        double s = seconds_since(t0), c = cpu_seconds() - c0;
        std::printf("encode: %.2f MB, %zu tokens (%.2f bytes/token)\n"
                    "  wall %.3f s = %.1f MB/s; cpu %.3f s = %.1f MB/s\n",
                    text.size() / 1e6, ids.size(),
                    static_cast<double>(text.size()) / static_cast<double>(ids.size()), s,
                    text.size() / 1e6 / s, c, text.size() / 1e6 / c);

        llm::DecodeState state;
        std::string back;
        for (int32_t id : ids)
            tok->decode_append(state, id, false, back);
        if (back != text) {
            std::fprintf(stderr, "decode(encode(text)) differs from the text\n");
            return 1;
        }
    } catch (const std::exception &e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
    return 0;
}
