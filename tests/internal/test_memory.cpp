// Resident memory of a big bf16 folder (hidden: needs a model generated with
// `llm-make-model --shape qwen2.5-0.5b --out DIR`, given as LLM_BIG_MODEL).
// Weights must stay in the page cache mapping, not be widened into
// anonymous memory.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <sys/stat.h>

#include "engine/transformer.h"
#include "loaders/hf_loader.h"
#include "loaders/loader.h"

namespace {

// A field of /proc/self/status in bytes (e.g. "RssAnon"), or -1.
int64_t proc_status_bytes(const std::string &field) {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.compare(0, field.size() + 1, field + ":") == 0)
            return std::atoll(line.c_str() + field.size() + 1) * 1024;
    return -1;
}

} // namespace

TEST_CASE("a bf16 folder stays mapped: resident memory near the file size", "[.][memory]") {
    const char *dir = std::getenv("LLM_BIG_MODEL");
    if (!dir) FAIL("set LLM_BIG_MODEL to a folder made by llm-make-model");
    const int64_t anon_before = proc_status_bytes("RssAnon");
    auto model = llm::load_hf_weights(dir, llm::LoadOptions{});
    struct stat st;
    REQUIRE(stat((std::string(dir) + "/model.safetensors").c_str(), &st) == 0);
    llm::Transformer tf(*model, 64, 2);
    std::vector<float> logits(static_cast<size_t>(model->config.vocab_size));
    const int32_t prompt[4] = {9707, 11, 1879, 0};
    REQUIRE(tf.forward(prompt, 4, 0, logits.data(), nullptr) == 4);
    const int64_t anon = proc_status_bytes("RssAnon") - anon_before;
    const int64_t file = proc_status_bytes("RssFile");
    WARN("file " << st.st_size / 1048576 << " MiB, weights " << model->weight_bytes() / 1048576
                 << " MiB, resident: mapped " << file / 1048576 << " MiB, anonymous +"
                 << anon / 1048576 << " MiB");
    CHECK(model->weights.layers[0].wq.type == llm::DType::BF16);
    // Norms and biases count 4 bytes a value (widened): a fraction of a percent.
    CHECK(model->weight_bytes() < st.st_size + st.st_size / 100);
    // Everything the forward pass read is mapped file pages...
    CHECK(file > st.st_size * 9 / 10);
    // ...and the process's own memory (norms, KV cache, activations) is small.
    CHECK(anon < 64 * 1048576);
}
