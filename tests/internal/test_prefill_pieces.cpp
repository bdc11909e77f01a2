// A prompt fed to Transformer::forward in pieces of any size from 2 tokens up
// gives every token the result of one forward() of the whole prompt, bit for
// bit: the batch kernels compute each token's row the same whatever the
// batch, and the attention's key blocks do not move with the cut. The
// decode scheduler relies on it to cut a prompt in small pieces while
// streams wait (engine/decode_scheduler.cpp); a piece of one token takes the
// decode kernels and is not bit-identical, so it cuts none but where
// forward() does (the prompt's last token).
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "engine/transformer.h"
#include "model/synthetic_model.h"

namespace {

// A small model of the family `shape` (2 layers): the Llama
// shape, or Gemma 3's with one sliding-window layer of `window` and one
// global, GQA and every norm.
llm::ModelConfig small_config(const std::string &shape, int32_t window) {
    llm::ModelConfig c;
    REQUIRE(llm::synthetic_config(shape, c));
    c.dim = 256; // whole 256-value blocks for the K-quants
    c.hidden_dim = 512;
    c.n_layers = 2;
    c.n_heads = 8;
    c.n_kv_heads = shape == "gemma3-1b" ? 1 : 2;
    c.head_dim = 32;
    c.vocab_size = 16384; // weights enough for chunks of 32 to 80 tokens
    c.max_seq_len = 512;
    if (!c.layer_attention.empty())
        c.layer_attention = {llm::LayerAttention{window, 10000.0f},
                             llm::LayerAttention{0, 1000000.0f}};
    if (c.embedding_scale != 1.0f) c.embedding_scale = 16.0f;
    return c;
}

std::vector<int32_t> prompt_of(int64_t n, int32_t vocab) {
    std::vector<int32_t> p(static_cast<size_t>(n));
    for (size_t i = 0; i < p.size(); ++i)
        p[i] = static_cast<int32_t>((i * 131 + 7) % static_cast<size_t>(vocab));
    return p;
}

// The logits after the prompt and after each of `extra` decoded tokens.
std::vector<float> run(llm::Transformer &tf, const std::vector<int32_t> &prompt,
                       const std::vector<int64_t> &pieces, int32_t vocab) {
    std::vector<float> logits(static_cast<size_t>(vocab)), all;
    int64_t done = 0;
    for (int64_t b : pieces) {
        const bool last = done + b == static_cast<int64_t>(prompt.size());
        REQUIRE(tf.forward(&prompt[static_cast<size_t>(done)], b, static_cast<int32_t>(done),
                           last ? logits.data() : nullptr, nullptr) == b);
        done += b;
    }
    REQUIRE(done == static_cast<int64_t>(prompt.size()));
    all = logits;
    for (int32_t t = 0; t < 3; ++t) {
        const int32_t tok = (t * 53 + 11) % vocab;
        REQUIRE(tf.forward(&tok, 1, static_cast<int32_t>(done + t), logits.data(), nullptr) == 1);
        all.insert(all.end(), logits.begin(), logits.end());
    }
    return all;
}

// n tokens cut into pieces of `size` (the last one shorter), none of one
// token; `sizes` instead, cycled, when given.
std::vector<int64_t> cut(int64_t n, std::vector<int64_t> sizes) {
    std::vector<int64_t> pieces;
    for (size_t i = 0; n > 0; ++i) {
        int64_t b = std::min(n, sizes[i % sizes.size()]);
        if (n - b == 1) b = b > 2 ? b - 1 : n;
        pieces.push_back(b);
        n -= b;
    }
    return pieces;
}

// Pieces up to the model's chunk size (a longer one would be cut by
// forward() itself, perhaps leaving one token).
void check_pieces(const llm::ModelConfig &config, llm::DType type, llm::DType kv, int64_t n) {
    auto model = llm::make_synthetic_model(config, type, 7);
    llm::Transformer whole(*model, 512, 2, kv);
    const int64_t max = whole.max_batch();
    const auto prompt = prompt_of(n, config.vocab_size);
    const auto expected = run(whole, prompt, {n}, config.vocab_size);
    std::mt19937 rng(5);
    std::vector<std::vector<int64_t>> cuts;
    for (int64_t size : {2, 3, 7, 8, 15, 16, 17, 31, 32, 33, 48, 64, 100, 127, 128})
        if (size <= max) cuts.push_back({size});
    for (int k = 0; k < 4; ++k) {
        std::vector<int64_t> sizes;
        for (int i = 0; i < 8; ++i)
            sizes.push_back(2 + static_cast<int64_t>(rng() % static_cast<uint32_t>(max - 1)));
        cuts.push_back(sizes);
    }
    for (const auto &sizes : cuts) {
        const auto pieces = cut(n, sizes);
        llm::Transformer tf(*model, 512, 2, kv);
        const auto got = run(tf, prompt, pieces, config.vocab_size);
        INFO(llm::dtype_name(type) << " KV " << llm::dtype_name(kv) << ", chunks of " << max << ", "
                                   << pieces.size() << " pieces, the first " << pieces[0]);
        CHECK(std::memcmp(got.data(), expected.data(), got.size() * sizeof(float)) == 0);
    }
}

} // namespace

TEST_CASE("prefill pieces: any cut of 2+ tokens gives one forward's results, bit for bit",
          "[engine][prefill_pieces]") {
    const llm::DType types[] = {llm::DType::F32,  llm::DType::BF16, llm::DType::F16,
                                llm::DType::Q8_0, llm::DType::Q4_0, llm::DType::Q4_K};
    for (llm::DType type : types)
        check_pieces(small_config("stories15M", 0), type, llm::DType::F32, 300);
    check_pieces(small_config("stories15M", 0), llm::DType::Q8_0, llm::DType::F16, 300);
}

TEST_CASE("prefill pieces: sliding-window layers too", "[engine][prefill_pieces]") {
    for (int32_t window : {8, 40, 300})
        check_pieces(small_config("gemma3-1b", window), llm::DType::BF16, llm::DType::F32, 290);
    check_pieces(small_config("gemma3-1b", 40), llm::DType::Q8_0, llm::DType::F16, 290);
}
