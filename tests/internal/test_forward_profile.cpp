// The forward profile llm-bench --profile prints: each stage counted once
// per layer and forward pass, with the bytes it reads, and nothing counted
// while no profile is attached.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "engine/transformer.h"
#include "model/synthetic_model.h"

TEST_CASE("forward profile: calls and bytes per stage", "[engine]") {
    llm::ModelConfig config;
    REQUIRE(llm::synthetic_config("stories15M", config));
    auto model = llm::make_synthetic_model(config, llm::DType::Q8_0, 1);
    const auto &layer = model->weights.layers[0];
    const int layers = config.n_layers;
    const auto kv_dim = static_cast<double>(config.kv_dim());

    for (llm::DType kv : {llm::DType::F32, llm::DType::F16}) {
        INFO("KV cache " << llm::dtype_name(kv));
        llm::Transformer tf(*model, 32, 2, kv);
        std::vector<float> logits(static_cast<size_t>(config.vocab_size));
        const std::vector<int32_t> prompt = {1, 2, 3, 4, 5};

        tf.forward(prompt.data(), 5, 0, logits.data(), nullptr); // not attached: not counted
        llm::ForwardProfile p;
        tf.set_profile(&p);
        tf.forward(prompt.data(), 2, 5, logits.data(), nullptr); // a batch at positions 5, 6
        const int32_t token = 7;
        tf.forward(&token, 1, 7, logits.data(), nullptr); // one token at position 7
        tf.set_profile(nullptr);
        tf.forward(&token, 1, 8, logits.data(), nullptr); // detached again

        using S = llm::ForwardProfile;
        for (int s : {S::QKV, S::Attention, S::Output, S::GateUp, S::Down}) {
            INFO(S::name(s));
            CHECK(p.calls[s] == 2 * layers);
            CHECK(p.seconds[s] > 0);
        }
        CHECK(p.calls[S::Classifier] == 2);
        const auto bytes = [](const llm::Matrix &m) { return static_cast<double>(m.bytes()); };
        CHECK(p.bytes[S::QKV] ==
              2 * layers * (bytes(layer.wq) + bytes(layer.wk) + bytes(layer.wv)));
        CHECK(p.bytes[S::Output] == 2 * layers * bytes(layer.wo));
        CHECK(p.bytes[S::GateUp] == 2 * layers * (bytes(layer.w_gate) + bytes(layer.w_up)));
        CHECK(p.bytes[S::Down] == 2 * layers * bytes(layer.w_down));
        CHECK(p.bytes[S::Classifier] == 2 * bytes(model->weights.classifier));
        // Keys and values of positions 0-6, then 0-7, in every layer.
        const double value_bytes = kv == llm::DType::F16 ? 2 : 4;
        CHECK(p.bytes[S::Attention] == layers * 2 * kv_dim * value_bytes * (7 + 8));
    }
}

TEST_CASE("forward profile: stage names", "[engine]") {
    using S = llm::ForwardProfile;
    CHECK(std::string(S::name(S::QKV)) == "q,k,v");
    CHECK(std::string(S::name(S::Attention)) == "attention");
    CHECK(std::string(S::name(S::Output)) == "o");
    CHECK(std::string(S::name(S::GateUp)) == "gate,up");
    CHECK(std::string(S::name(S::Down)) == "down");
    CHECK(std::string(S::name(S::Classifier)) == "classifier");
    CHECK(std::string(S::name(S::kStages)) == "?");
}
