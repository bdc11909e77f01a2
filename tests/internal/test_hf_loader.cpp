// The HF folder loader on generated folders with one thing wrong at a time:
// missing, extra or misshaped tensors, bad dtypes, missing files, broken
// JSON — each a clear status and message. Also format detection.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include "loaders/hf_loader.h"
#include "loaders/loader.h"
#include "modelgen/model_sources.h"
#include "modelgen/model_writer.h"
#include "support/engine_helpers.h"
#include "support/test_support.h"

using namespace test;
using llm::gen::ModelSpec;
using llm::gen::TensorSource;

namespace {

// Small random models: a Llama (stories260K's shape) and a Qwen2 with
// biases and a small vocabulary.
ModelSpec llama_spec(bool tied = true) {
    ModelSpec s = *llm::gen::find_shape("stories260K");
    s.tied = tied;
    return s;
}
ModelSpec qwen2_spec() {
    ModelSpec s = *llm::gen::find_shape("qwen2-tiny");
    s.config.vocab_size = 256;
    s.bos = 1;
    s.eos = {3, 4};
    return s;
}

std::string write_folder(const ModelSpec &spec, std::vector<TensorSource> tensors,
                         llm::DType dtype = llm::DType::F32) {
    auto dir = temp_dir();
    llm::gen::write_hf_folder(dir, spec, tensors, {dtype, 1});
    return dir;
}
std::string write_folder(const ModelSpec &spec) {
    return write_folder(spec, llm::gen::random_tensors(spec, 7));
}

std::unique_ptr<llm::Model> load(const std::string &path) {
    return llm::load_hf_weights(path, llm::LoadOptions{});
}
llm::Error load_error(const std::string &path) {
    return error_of([&] { load(path); });
}

// Rewrites the JSON header of a safetensors file, keeping its data; `pad`
// extra spaces after the JSON shift the data section.
void rewrite_header(const std::string &path, const std::function<void(nlohmann::json &)> &edit,
                    size_t pad = 0) {
    std::string bytes = read_file(path);
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i)
        n = (n << 8) | static_cast<uint8_t>(bytes[static_cast<size_t>(i)]);
    auto header = nlohmann::json::parse(bytes.substr(8, n));
    edit(header);
    std::string text = header.dump() + std::string(pad, ' ');
    std::string out(8, '\0');
    for (int i = 0; i < 8; ++i)
        out[static_cast<size_t>(i)] = static_cast<char>(text.size() >> (8 * i));
    write_file(path, out + text + bytes.substr(8 + n));
}

// A tensor of zeros.
TensorSource zeros(const std::string &name, std::vector<int64_t> shape) {
    const int64_t cols = shape.back();
    return TensorSource{name, std::move(shape),
                        [cols](int64_t, float *out) { std::fill_n(out, cols, 0.0f); }};
}

void drop(std::vector<TensorSource> &tensors, const std::string &name) {
    auto it = std::find_if(tensors.begin(), tensors.end(), [&](auto &t) { return t.name == name; });
    REQUIRE(it != tensors.end());
    tensors.erase(it);
}

} // namespace

TEST_CASE("hf loader: generated folders load", "[hf][loader]") {
    auto llama = load(write_folder(llama_spec()));
    CHECK(llama->config.arch == "llama");
    CHECK(llama->eog_tokens == std::vector<int32_t>{2});
    auto qwen = load(
        write_folder(qwen2_spec(), llm::gen::random_tensors(qwen2_spec(), 7), llm::DType::BF16));
    CHECK(qwen->config.qkv_bias);
    CHECK(qwen->weights.layers[1].bk.n == 32);
    CHECK(qwen->weights.layers[0].wq.type == llm::DType::BF16);
    CHECK(qwen->eog_tokens == std::vector<int32_t>{3, 4}); // generation_config, then config
    // Random weights run without producing NaNs.
    auto ids = greedy_ids(*qwen, {1, 2, 3}, 12, {});
    CHECK(ids.size() == 10);
}

TEST_CASE("hf loader: missing, extra and misshaped tensors", "[hf][loader][bad]") {
    const ModelSpec spec = llama_spec();
    auto tensors = [&] { return llm::gen::random_tensors(spec, 7); };
    SECTION("missing tensor") {
        auto t = tensors();
        drop(t, "model.layers.1.mlp.up_proj.weight");
        auto e = load_error(write_folder(spec, t));
        CHECK(e.status() == LLM_ERR_FORMAT);
        CHECK_THAT(e.what(),
                   Catch::Contains("missing tensor \"model.layers.1.mlp.up_proj.weight\""));
    }
    SECTION("extra tensor") {
        auto t = tensors();
        t.push_back(zeros("model.layers.0.self_attn.o_proj.bias", {64}));
        auto e = load_error(write_folder(spec, t));
        CHECK(e.status() == LLM_ERR_FORMAT);
        CHECK_THAT(e.what(),
                   Catch::Contains("unexpected tensor \"model.layers.0.self_attn.o_proj.bias\""));
    }
    SECTION("a layer beyond num_hidden_layers") {
        auto t = tensors();
        t.push_back(zeros("model.layers.5.input_layernorm.weight", {64}));
        CHECK_THAT(load_error(write_folder(spec, t)).what(),
                   Catch::Contains("model.layers.5.input_layernorm.weight"));
    }
    SECTION("q/k/v biases in a llama folder") {
        auto t = tensors();
        t.push_back(zeros("model.layers.0.self_attn.q_proj.bias", {64}));
        CHECK(load_error(write_folder(spec, t)).status() == LLM_ERR_FORMAT);
    }
    SECTION("rotary_emb.inv_freq buffers are ignored") {
        auto t = tensors();
        t.push_back(zeros("model.layers.0.self_attn.rotary_emb.inv_freq", {4}));
        CHECK_NOTHROW(load(write_folder(spec, t)));
    }
    SECTION("wrong shape") {
        auto t = tensors();
        for (auto &x : t)
            if (x.name == "model.layers.2.mlp.gate_proj.weight") x.shape = {170, 64};
        auto e = load_error(write_folder(spec, t));
        CHECK(e.status() == LLM_ERR_BAD_DIMENSIONS);
        CHECK_THAT(e.what(), Catch::Contains("\"model.layers.2.mlp.gate_proj.weight\" has shape "
                                             "[170, 64] but config.json implies [172, 64]"));
    }
    SECTION("transposed matrix") {
        auto t = tensors();
        for (auto &x : t)
            if (x.name == "model.layers.0.mlp.down_proj.weight") x = zeros(x.name, {172, 64});
        CHECK(load_error(write_folder(spec, t)).status() == LLM_ERR_BAD_DIMENSIONS);
    }
    SECTION("vocab_size in config.json differs from the embedding") {
        auto dir = write_folder(spec);
        auto config = read_json(dir + "/config.json");
        config["vocab_size"] = 500;
        write_file(dir + "/config.json", config.dump());
        auto e = load_error(dir);
        CHECK(e.status() == LLM_ERR_BAD_DIMENSIONS);
        CHECK_THAT(e.what(), Catch::Contains("model.embed_tokens.weight"));
    }
    SECTION("unsupported dtype") {
        auto dir = write_folder(spec);
        rewrite_header(dir + "/model.safetensors",
                       [](auto &h) { h["model.norm.weight"]["dtype"] = "I32"; });
        auto e = load_error(dir);
        CHECK(e.status() == LLM_ERR_UNSUPPORTED);
        CHECK_THAT(e.what(), Catch::Contains("\"model.norm.weight\" has dtype I32"));
    }
}

TEST_CASE("hf loader: tied and untied heads", "[hf][loader][bad]") {
    SECTION("lm_head.weight although tie_word_embeddings") {
        ModelSpec untied = llama_spec(false);
        auto dir = write_folder(untied);
        auto config = read_json(dir + "/config.json");
        config["tie_word_embeddings"] = true;
        write_file(dir + "/config.json", config.dump());
        auto e = load_error(dir);
        CHECK(e.status() == LLM_ERR_FORMAT);
        CHECK_THAT(e.what(), Catch::Contains("lm_head.weight"));
    }
    SECTION("untied without lm_head.weight") {
        auto dir = write_folder(llama_spec(true));
        auto config = read_json(dir + "/config.json");
        config["tie_word_embeddings"] = false;
        write_file(dir + "/config.json", config.dump());
        CHECK_THAT(load_error(dir).what(), Catch::Contains("missing tensor \"lm_head.weight\""));
    }
    SECTION("qwen2 without its biases") {
        auto t = llm::gen::random_tensors(qwen2_spec(), 7);
        drop(t, "model.layers.0.self_attn.k_proj.bias");
        CHECK_THAT(load_error(write_folder(qwen2_spec(), t)).what(),
                   Catch::Contains("missing tensor \"model.layers.0.self_attn.k_proj.bias\""));
    }
}

TEST_CASE("hf loader: misaligned tensor data is copied, not read unaligned", "[hf][loader]") {
    // A header padded to an odd length puts every F32 tensor off its 4-byte
    // alignment; the results must not change (UBSan builds would flag an
    // unaligned read).
    auto source_spec = llama_spec();
    llm::LoadOptions o;
    o.tokenizer_path = shared_path("models/tok512.bin");
    auto source = llm::load_model(shared_path("models/stories260K.bin"), o);
    auto dir = temp_dir();
    auto spec = llm::gen::spec_of(*source, false);
    llm::gen::write_hf_folder(dir, spec, llm::gen::model_tensors(*source, spec),
                              {llm::DType::F32, 1});
    rewrite_header(
        dir + "/model.safetensors", [](auto &) {}, 1);
    auto model = load(dir);
    CHECK(reinterpret_cast<uintptr_t>(model->weights.layers[0].wq.data) % 4 == 0);
    check_stories260k_goldens(*model);
}

TEST_CASE("hf loader: broken or missing files", "[hf][loader][bad]") {
    const ModelSpec spec = llama_spec();
    auto dir = write_folder(spec);
    const std::string st = dir + "/model.safetensors";
    SECTION("malformed config.json") {
        write_file(dir + "/config.json", "{\"model_type\": \"llama\", ");
        auto e = load_error(dir);
        CHECK(e.status() == LLM_ERR_FORMAT);
        CHECK_THAT(e.what(), Catch::Contains("config.json: invalid JSON"));
    }
    SECTION("malformed generation_config.json") {
        write_file(dir + "/generation_config.json", "{\"eos_token_id\": [2,");
        CHECK_THAT(load_error(dir).what(), Catch::Contains("generation_config.json"));
    }
    SECTION("an EOS id outside the vocabulary") {
        write_file(dir + "/generation_config.json", "{\"eos_token_id\": 512}");
        CHECK(load_error(dir).status() == LLM_ERR_TOKENIZER_MISMATCH);
    }
    SECTION("header length past the end of the file") {
        std::string bytes = read_file(st);
        write_file(st, bytes.substr(0, 100));
        auto e = load_error(dir);
        CHECK(e.status() == LLM_ERR_TRUNCATED);
        CHECK_THAT(e.what(), Catch::Contains("header length"));
    }
    SECTION("data cut short") {
        std::string bytes = read_file(st);
        write_file(st, bytes.substr(0, bytes.size() - 4));
        auto e = load_error(dir);
        CHECK(e.status() == LLM_ERR_TRUNCATED);
        CHECK_THAT(e.what(), Catch::Contains("past the end"));
    }
    SECTION("overlapping tensors") {
        rewrite_header(st, [](auto &h) {
            h["model.layers.0.ffn_norm_dup"] = h["model.norm.weight"];
            h.erase("model.norm.weight");
            h["model.norm.weight"] = h["model.layers.0.input_layernorm.weight"];
        });
        auto e = load_error(dir);
        CHECK(e.status() == LLM_ERR_FORMAT);
        CHECK_THAT(e.what(), Catch::Contains("overlap"));
    }
    SECTION("no weights") {
        std::remove(st.c_str());
        auto e = load_error(dir);
        CHECK(e.status() == LLM_ERR_NOT_FOUND);
        CHECK_THAT(e.what(), Catch::Contains("model.safetensors"));
        write_file(dir + "/pytorch_model.bin", "PK");
        CHECK(load_error(dir).status() == LLM_ERR_UNSUPPORTED);
    }
    SECTION("no config.json") {
        std::remove((dir + "/config.json").c_str());
        auto e = load_error(dir);
        CHECK(e.status() == LLM_ERR_NOT_FOUND);
        CHECK_THAT(e.what(), Catch::Contains("config.json"));
        // A lone .safetensors file is recognised by content, then needs config.json too.
        auto e2 = error_of([&] { llm::load_model(st, llm::LoadOptions{}); });
        CHECK(e2.status() == LLM_ERR_NOT_FOUND);
        CHECK_THAT(e2.what(), Catch::Contains("config.json"));
    }
    SECTION("a .safetensors file given directly") {
        CHECK(load(st)->config.n_layers == 5);
    }
}

TEST_CASE("format detection looks at content, not names", "[hf][loader]") {
    // A llama2.c checkpoint named like safetensors loads as llama2.c.
    auto dir = temp_dir();
    write_file(dir + "/model.safetensors", read_file(shared_path("models/stories260K.bin")));
    write_file(dir + "/tokenizer.bin", read_file(shared_path("models/tok512.bin")));
    auto model = llm::load_model(dir + "/model.safetensors", llm::LoadOptions{});
    CHECK(model->format == "llama2c");
    // A folder without config.json is not a model.
    auto e = error_of([&] { llm::load_model(dir, llm::LoadOptions{}); });
    CHECK(e.status() == LLM_ERR_NOT_FOUND);
    CHECK_THAT(e.what(), Catch::Contains("config.json"));
}
