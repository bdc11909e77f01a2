// Hugging Face folders through the weights-only loader and the engine,
// against the goldens: qwen2-tiny (HF-semantics reference), stories260K-hf
// and generated Llama folders (llama2.c run.c's goldens).
#include <catch2/catch.hpp>

#include "engine/transformer.h"
#include "loaders/hf_loader.h"
#include "loaders/llama2c_loader.h"
#include "loaders/loader.h"
#include "modelgen/model_sources.h"
#include "modelgen/model_writer.h"
#include "support/engine_helpers.h"
#include "support/test_support.h"

using namespace test;

namespace {

std::unique_ptr<llm::Model> load_weights(const std::string &path, bool use_mmap = true) {
    llm::LoadOptions o;
    o.use_mmap = use_mmap;
    return llm::load_hf_weights(path, o);
}

std::unique_ptr<llm::Model> load_stories260k_bin() {
    llm::LoadOptions o;
    o.tokenizer_path = shared_path("models/tok512.bin");
    return llm::load_llama2c(shared_path("models/stories260K.bin"), o);
}

// stories260K.bin rewritten as an HF Llama folder by llm-make-model's writer.
std::string convert_stories260k(bool untie, int shards, llm::DType dtype = llm::DType::F32) {
    auto source = load_stories260k_bin();
    auto spec = llm::gen::spec_of(*source, untie);
    auto dir = temp_dir();
    llm::gen::write_hf_folder(dir, spec, llm::gen::model_tensors(*source, spec), {dtype, shards});
    return dir;
}

void check_qwen2_tiny(const llm::Model &model) {
    auto manifest = read_json(shared_path("golden/qwen2-tiny/manifest.json"));
    for (const auto &name : manifest["prompts"]) {
        const std::string base = shared_path("golden/qwen2-tiny/" + name.get<std::string>());
        auto g = read_json(base + ".json");
        INFO(name);
        const auto prompt = g["prompt_token_ids"].get<std::vector<int32_t>>();
        const auto golden_ids = g["generated_token_ids"].get<std::vector<int32_t>>();
        // EOS is not a stop token in these goldens: exactly 32 greedy ids.
        const int32_t steps = static_cast<int32_t>(prompt.size() + golden_ids.size()) - 1;
        CHECK(greedy_ids(model, prompt, steps, {}) == golden_ids);

        std::vector<int32_t> tokens = prompt;
        tokens.insert(tokens.end(), golden_ids.begin(), golden_ids.end());
        const auto rows = g["logits_rows"].get<std::vector<int32_t>>();
        auto golden = read_f32_rows(base + ".logits.f32", g["vocab_size"].get<size_t>());
        REQUIRE(golden.size() == rows.size());
        auto logits = teacher_forced_logits(model, tokens, rows);
        for (size_t i = 0; i < rows.size(); ++i) {
            INFO("row " << rows[i]);
            CHECK(max_abs_diff(logits[i].data(), golden[i].data(), golden[i].size()) < 1e-3f);
        }
    }
}

} // namespace

TEST_CASE("qwen2-tiny: greedy ids and logits equal the HF reference", "[golden][hf][qwen2]") {
    auto model = load_weights(shared_path("models/qwen2-tiny"));
    const llm::ModelConfig &c = model->config;
    CHECK(c.arch == "qwen2");
    CHECK(c.qkv_bias);
    CHECK(c.rope_style == llm::RopeStyle::HalfSplit);
    CHECK(c.n_kv_heads == 2);
    CHECK(model->weights.classifier.data == model->weights.token_embedding.data);
    check_qwen2_tiny(*model);
}

namespace {
// One prompt's greedy ids, for the other ways of loading the same folder.
void check_qwen2_tiny_greedy(const llm::Model &model) {
    auto g = read_json(shared_path("golden/qwen2-tiny/p2_code.json"));
    const auto prompt = g["prompt_token_ids"].get<std::vector<int32_t>>();
    CHECK(greedy_ids(model, prompt, static_cast<int32_t>(prompt.size()) + 31, {}) ==
          g["generated_token_ids"].get<std::vector<int32_t>>());
}
} // namespace

TEST_CASE("qwen2-tiny read into memory (no mmap) gives the same results", "[golden][hf][qwen2]") {
    check_qwen2_tiny_greedy(*load_weights(shared_path("models/qwen2-tiny"), false));
}

TEST_CASE("qwen2-tiny given as its .safetensors file", "[golden][hf][qwen2]") {
    check_qwen2_tiny_greedy(*load_weights(shared_path("models/qwen2-tiny/model.safetensors")));
}

TEST_CASE("bf16 weights stay bf16 and memory-mapped", "[hf][qwen2][memory]") {
    auto model = load_weights(shared_path("models/qwen2-tiny"));
    REQUIRE(model->files.size() == 1);
    const llm::MappedFile &file = *model->files[0];
    auto in_file = [&](const void *p, size_t bytes) {
        auto b = static_cast<const uint8_t *>(p);
        return b >= file.data() && b + bytes <= file.data() + file.size();
    };
    const llm::ModelWeights &w = model->weights;
    CHECK(w.token_embedding.type == llm::DType::BF16);
    CHECK(in_file(w.token_embedding.data, w.token_embedding.bytes()));
    for (const auto &l : w.layers)
        for (const llm::Matrix *m : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down}) {
            CHECK(m->type == llm::DType::BF16);
            CHECK(in_file(m->data, m->bytes()));
        }
    // Only the norms and biases (a few KB) were widened into owned storage.
    size_t owned = 0;
    for (const llm::Vector *v : {&w.final_norm})
        owned += static_cast<size_t>(v->n) * 4;
    for (const auto &l : w.layers)
        for (const llm::Vector *v : {&l.attn_norm, &l.ffn_norm, &l.bq, &l.bk, &l.bv})
            owned += static_cast<size_t>(v->n) * 4;
    CHECK(model->owned.size() == 1 + 5 * w.layers.size());
    CHECK(owned < 16384);
    // Two bytes per matrix weight: the in-memory size is about the file's.
    CHECK(model->weight_bytes() <= static_cast<int64_t>(file.size()));
    CHECK(model->weight_bytes() > static_cast<int64_t>(file.size()) * 99 / 100);
}

TEST_CASE("stories260K-hf reproduces llama2.c run.c's goldens", "[golden][hf][llama]") {
    auto model = load_weights(shared_path("models/stories260K-hf"));
    CHECK(model->config.arch == "llama");
    CHECK_FALSE(model->config.qkv_bias);
    CHECK(model->eog_tokens == std::vector<int32_t>{2});
    check_stories260k_goldens(*model);
}

TEST_CASE("a generated Llama folder with an untied lm_head reproduces run.c's goldens",
          "[golden][hf][llama]") {
    auto dir = convert_stories260k(/*untie=*/true, 1);
    auto config = read_json(dir + "/config.json");
    CHECK(config["model_type"] == "llama");
    CHECK(config["tie_word_embeddings"] == false);
    auto model = load_weights(dir);
    REQUIRE_FALSE(model->weights.classifier.empty());
    CHECK(model->weights.classifier.data != model->weights.token_embedding.data);
    check_stories260k_goldens(*model);
}

TEST_CASE("a sharded folder (index.json + 3 shards) loads like one file", "[golden][hf][llama]") {
    auto dir = convert_stories260k(/*untie=*/false, 3);
    CHECK(read_json(dir + "/model.safetensors.index.json")["weight_map"].size() == 47);
    auto model = load_weights(dir);
    CHECK(model->files.size() == 3);
    check_stories260k_goldens(*model);
}

TEST_CASE("the converter's q/k permutation equals stories260K-hf's", "[hf][llama]") {
    // stories260K-hf was converted independently (shared/models/README.md):
    // every tensor must come out bit-identical.
    auto ours = load_weights(convert_stories260k(false, 1));
    auto theirs = load_weights(shared_path("models/stories260K-hf"));
    auto same = [](const llm::Matrix &a, const llm::Matrix &b) {
        return a.bytes() == b.bytes() && std::memcmp(a.data, b.data, a.bytes()) == 0;
    };
    auto same_v = [](const llm::Vector &a, const llm::Vector &b) {
        return a.n == b.n && std::memcmp(a.data, b.data, static_cast<size_t>(a.n) * 4) == 0;
    };
    CHECK(same(ours->weights.token_embedding, theirs->weights.token_embedding));
    CHECK(same_v(ours->weights.final_norm, theirs->weights.final_norm));
    for (size_t i = 0; i < ours->weights.layers.size(); ++i) {
        const auto &a = ours->weights.layers[i], &b = theirs->weights.layers[i];
        INFO("layer " << i);
        CHECK(same(a.wq, b.wq));
        CHECK(same(a.wk, b.wk));
        CHECK(same(a.wv, b.wv));
        CHECK(same(a.wo, b.wo));
        CHECK(same(a.w_gate, b.w_gate));
        CHECK(same(a.w_up, b.w_up));
        CHECK(same(a.w_down, b.w_down));
        CHECK(same_v(a.attn_norm, b.attn_norm));
        CHECK(same_v(a.ffn_norm, b.ffn_norm));
    }
}
