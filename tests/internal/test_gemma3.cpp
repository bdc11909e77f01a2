// Gemma 3 (text): the GELU-gated FFN's kernel, sliding-window attention
// (decode and batched), config.json's fields and refusals, and the whole
// forward pass of a tiny Gemma 3 folder against a straightforward double
// precision reference written out here, formula by formula.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "common/json.h"
#include "engine/transformer.h"
#include "kernels/float_convert.h"
#include "kernels/kernel_table.h"
#include "kernels/kernels.h"
#include "kernels/thread_pool.h"
#include "loaders/hf_config.h"
#include "loaders/hf_loader.h"
#include "loaders/loader.h"
#include "model/synthetic_model.h"
#include "support/engine_helpers.h"
#include "support/test_support.h"
#include "tokenizer/tokenizer.h"

namespace {

std::vector<float> uniform(size_t n, uint32_t seed, float lo, float hi) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> d(lo, hi);
    std::vector<float> v(n);
    for (float &x : v)
        x = d(rng);
    return v;
}

double gelu_tanh(double x) {
    const double pi = 3.14159265358979323846;
    return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / pi) * (x + 0.044715 * x * x * x)));
}

} // namespace

TEST_CASE("gemma3: gelu_mul matches the scalar reference and the double formula",
          "[kernels][gemma3]") {
    llm::KernelTable scalar;
    llm::fill_scalar_kernels(scalar);
    for (int64_t n : {1, 7, 8, 16, 33, 100, 1024}) {
        auto x = uniform(static_cast<size_t>(n), static_cast<uint32_t>(n), -8.0f, 8.0f);
        auto w = uniform(static_cast<size_t>(n), static_cast<uint32_t>(n + 1), -2.0f, 2.0f);
        std::vector<float> simd = x, ref = x;
        llm::gelu_mul(simd.data(), w.data(), n); // the active level's kernel
        scalar.gelu_mul(ref.data(), w.data(), n);
        for (int64_t i = 0; i < n; ++i) {
            const double exact = gelu_tanh(x[i]) * w[i];
            INFO("n=" << n << " x=" << x[i]);
            CHECK(simd[i] == Approx(exact).margin(1e-6).epsilon(1e-5));
            CHECK(ref[i] == Approx(exact).margin(1e-6).epsilon(1e-5));
        }
    }
    // The extremes stay finite: gelu(x) -> 0 far below 0 and -> x far above.
    std::vector<float> x = {-1e30f, -1000.0f, -100.0f, -10.0f, -3.0f,   -0.5f, 0.0f,
                            0.5f,   3.0f,     10.0f,   100.0f, 1000.0f, 1e30f};
    std::vector<float> ones(x.size(), 1.0f), a = x, r = x;
    llm::gelu_mul(a.data(), ones.data(), static_cast<int64_t>(a.size()));
    scalar.gelu_mul(r.data(), ones.data(), static_cast<int64_t>(r.size()));
    for (size_t i = 0; i < x.size(); ++i) {
        INFO("x=" << x[i]);
        CHECK(std::isfinite(a[i]));
        CHECK(std::isfinite(r[i]));
        const double exact = std::fabs(x[i]) > 50 ? (x[i] > 0 ? x[i] : 0.0) : gelu_tanh(x[i]);
        CHECK(a[i] == Approx(exact).margin(1e-6).epsilon(1e-5));
        CHECK(r[i] == Approx(exact).margin(1e-6).epsilon(1e-5));
    }
}

namespace {

// A KV cache's layout for n_kv heads of `stride` values each: fp32, or fp16
// with `keys`/`values` rounded to what fp16 holds.
struct WindowKV {
    llm::DType type;
    std::vector<float> keys, values;
    std::vector<uint16_t> k16, v16;
    WindowKV(llm::DType t, size_t n, uint32_t seed) : type(t) {
        keys = uniform(n, seed, -1.5f, 1.5f);
        values = uniform(n, seed + 1, -1.0f, 1.0f);
        if (t == llm::DType::F16) {
            for (float &k : keys) {
                k16.push_back(llm::f32_to_f16(k));
                k = llm::f16_to_f32(k16.back());
            }
            for (float &v : values) {
                v16.push_back(llm::f32_to_f16(v));
                v = llm::f16_to_f32(v16.back());
            }
        }
    }
    const void *k() const {
        return type == llm::DType::F16 ? static_cast<const void *>(k16.data()) : keys.data();
    }
    const void *v() const {
        return type == llm::DType::F16 ? static_cast<const void *>(v16.data()) : values.data();
    }
};

// softmax over positions lo .. hi of scale * q . k_p, then the weighted sum
// of v_p, in double.
std::vector<double> naive_attention(const float *q, const WindowKV &kv, int64_t head_offset,
                                    int64_t lo, int64_t hi, int64_t hd, double scale) {
    std::vector<double> s;
    double mx = -1e300;
    for (int64_t p = lo; p <= hi; ++p) {
        double dot = 0;
        for (int64_t i = 0; i < hd; ++i)
            dot += double(q[i]) * kv.keys[static_cast<size_t>(head_offset + p * hd + i)];
        s.push_back(dot * scale);
        mx = std::max(mx, s.back());
    }
    double total = 0;
    for (double &e : s) {
        e = std::exp(e - mx);
        total += e;
    }
    std::vector<double> out(static_cast<size_t>(hd), 0.0);
    for (int64_t p = lo; p <= hi; ++p)
        for (int64_t i = 0; i < hd; ++i)
            out[static_cast<size_t>(i)] += s[static_cast<size_t>(p - lo)] / total *
                                           kv.values[static_cast<size_t>(head_offset + p * hd + i)];
    return out;
}

} // namespace

TEST_CASE("gemma3: sliding-window attention, one token, matches a naive reference",
          "[kernels][gemma3]") {
    // Window 1 (only itself), small windows, the 256-position block edge,
    // and windows longer than the context (all positions).
    const int64_t n_kv = 2, group = 2, n_heads = n_kv * group, hd = 16;
    const int64_t n_ctx = 300, stride = n_ctx * hd + 5;
    for (llm::DType type : {llm::DType::F32, llm::DType::F16}) {
        const WindowKV kv(type, static_cast<size_t>(n_kv * stride), 7);
        for (int64_t pos : {0, 1, 5, 255, 256, 299})
            for (int64_t window : {1, 2, 5, 256, 257, 1000}) {
                auto q =
                    uniform(static_cast<size_t>(n_heads * hd), static_cast<uint32_t>(pos), -2, 2);
                const int64_t first = std::max<int64_t>(0, pos - window + 1);
                std::vector<float> scores(static_cast<size_t>(n_heads * n_ctx));
                std::vector<float> out(static_cast<size_t>(n_heads * hd), -9.0f);
                const float scale = 0.3f;
                llm::attention_heads(type, q.data(), kv.k(), kv.v(), stride, pos + 1 - first, hd, 0,
                                     n_heads, group, scale, scores.data(), out.data(), first);
                double worst = 0;
                for (int64_t h = 0; h < n_heads; ++h) {
                    const auto ref = naive_attention(&q[static_cast<size_t>(h * hd)], kv,
                                                     h / group * stride, first, pos, hd, scale);
                    for (int64_t i = 0; i < hd; ++i)
                        worst = std::max(worst, std::fabs(out[static_cast<size_t>(h * hd + i)] -
                                                          ref[static_cast<size_t>(i)]));
                }
                INFO(llm::dtype_name(type) << " pos=" << pos << " window=" << window);
                CHECK(worst < 1e-5);
            }
    }
}

TEST_CASE("gemma3: sliding-window attention, batched, matches a naive reference",
          "[kernels][gemma3]") {
    // Rows of a job (64) see different window starts; blocks of 256
    // positions start at the job's first window start, not at 0.
    llm::ThreadPool pool(2);
    const int64_t n_kv = 1;
    for (llm::DType type : {llm::DType::F32, llm::DType::F16})
        for (int64_t group : {1, 4})
            for (int64_t n : {2, 17, 70})
                for (int32_t pos0 : {0, 3, 260})
                    for (int64_t window : {1, 3, 64, 300, 100000}) {
                        const int64_t hd = 32, n_heads = n_kv * group, q_dim = n_heads * hd;
                        const int64_t n_pos = pos0 + n, stride = n_pos * hd + 3;
                        const WindowKV kv(type, static_cast<size_t>(n_kv * stride), 11);
                        auto q = uniform(static_cast<size_t>(n * q_dim), 12, -2, 2);
                        const float scale = 1.0f / 8.0f;
                        for (llm::ThreadPool *p :
                             {static_cast<llm::ThreadPool *>(nullptr), &pool}) {
                            std::vector<float> out(static_cast<size_t>(n * q_dim), -7.0f);
                            llm::attention_batch(type, q.data(), kv.k(), kv.v(), stride, n, pos0,
                                                 hd, n_heads, n_kv, scale, out.data(), p, window);
                            double worst = 0;
                            for (int64_t t = 0; t < n; ++t)
                                for (int64_t h = 0; h < n_heads; ++h) {
                                    const int64_t pos = pos0 + t;
                                    const int64_t lo = std::max<int64_t>(0, pos - window + 1);
                                    const size_t at = static_cast<size_t>(t * q_dim + h * hd);
                                    const auto ref = naive_attention(&q[at], kv, h / group * stride,
                                                                     lo, pos, hd, scale);
                                    for (int64_t i = 0; i < hd; ++i)
                                        worst = std::max(
                                            worst, std::fabs(out[at + static_cast<size_t>(i)] -
                                                             ref[static_cast<size_t>(i)]));
                                }
                            INFO(llm::dtype_name(type)
                                 << " group=" << group << " n=" << n << " pos0=" << pos0
                                 << " window=" << window << (p ? " pool" : ""));
                            CHECK(worst < 1e-5);
                        }
                    }
}

namespace {

// google/gemma-3-1b-it's config.json as published.
const char *kGemma3_1b = R"({
  "architectures": ["Gemma3ForCausalLM"],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "attn_logit_softcapping": null,
  "bos_token_id": 2,
  "cache_implementation": "hybrid",
  "eos_token_id": [1, 106],
  "final_logit_softcapping": null,
  "head_dim": 256,
  "hidden_activation": "gelu_pytorch_tanh",
  "hidden_size": 1152,
  "initializer_range": 0.02,
  "intermediate_size": 6912,
  "max_position_embeddings": 32768,
  "model_type": "gemma3_text",
  "num_attention_heads": 4,
  "num_hidden_layers": 26,
  "num_key_value_heads": 1,
  "pad_token_id": 0,
  "query_pre_attn_scalar": 256,
  "rms_norm_eps": 1e-06,
  "rope_local_base_freq": 10000,
  "rope_scaling": null,
  "rope_theta": 1000000,
  "sliding_window": 512,
  "sliding_window_pattern": 6,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.50.0.dev0",
  "use_cache": true,
  "vocab_size": 262144
})";

llm::HfConfig parse(const llm::Json &j) {
    return llm::parse_hf_config(j.dump(), "config.json");
}

llm::Error parse_error(const llm::Json &j) {
    return test::error_of([&] { parse(j); });
}

} // namespace

TEST_CASE("gemma3: config.json of Gemma-3-1B", "[hf][config][gemma3]") {
    const llm::Json base = llm::parse_json(kGemma3_1b, "config.json");
    const llm::HfConfig hc = parse(base);
    const llm::ModelConfig &c = hc.model;
    CHECK(c.arch == "gemma3");
    CHECK(c.dim == 1152);
    CHECK(c.hidden_dim == 6912);
    CHECK(c.n_layers == 26);
    CHECK(c.n_heads == 4);
    CHECK(c.n_kv_heads == 1);
    CHECK(c.head_dim == 256);
    CHECK(c.q_dim() == 1024);
    CHECK(c.vocab_size == 262144);
    CHECK(c.max_seq_len == 32768);
    CHECK(c.norm_eps == Approx(1e-6f));
    CHECK(c.rope_style == llm::RopeStyle::HalfSplit);
    CHECK(c.ffn_activation == llm::Activation::GeluTanh);
    CHECK(c.qk_norm);
    CHECK(c.post_norms);
    CHECK_FALSE(c.qkv_bias);
    CHECK(c.rope_freq_divisors.empty());
    CHECK(c.embedding_scale == std::sqrt(1152.0f));
    CHECK(c.attention_scale == Approx(1.0 / 16.0));
    CHECK(c.attention_scores_scale() == Approx(1.0 / 16.0));
    CHECK(hc.tie_word_embeddings); // transformers' default for Gemma 3
    CHECK(hc.norm_offset == 1.0f);
    CHECK(hc.eos_token_ids == std::vector<int32_t>{1, 106});
    REQUIRE(c.layer_attention.size() == 26);
    for (int32_t l = 0; l < 26; ++l) {
        INFO("layer " << l);
        const bool global = (l + 1) % 6 == 0; // layers 5, 11, 17, 23
        CHECK(c.window(l) == (global ? 0 : 512));
        CHECK(c.layer_rope_theta(l) == (global ? 1e6f : 1e4f));
    }

    // transformers 4.53+'s layer_types wins over the pattern.
    llm::Json j = base;
    j["layer_types"] = llm::Json::array();
    for (int l = 0; l < 26; ++l)
        j["layer_types"].push_back(l % 2 ? "full_attention" : "sliding_attention");
    llm::ModelConfig lt = parse(j).model;
    for (int32_t l = 0; l < 26; ++l)
        CHECK(lt.window(l) == (l % 2 ? 0 : 512));
    j["layer_types"][3] = "chunked_attention";
    CHECK(parse_error(j).status() == LLM_ERR_UNSUPPORTED);
    CHECK_THAT(parse_error(j).what(), Catch::Contains("layer_types"));
    j["layer_types"] = {"sliding_attention"};
    CHECK(parse_error(j).status() == LLM_ERR_FORMAT);

    // transformers 5's rope_parameters per layer type.
    j = base;
    j.erase("rope_theta");
    j.erase("rope_local_base_freq");
    j["rope_parameters"] = {
        {"full_attention", {{"rope_type", "default"}, {"rope_theta", 2000000.0}}},
        {"sliding_attention", {{"rope_type", "default"}, {"rope_theta", 20000.0}}}};
    llm::ModelConfig rp = parse(j).model;
    CHECK(rp.layer_rope_theta(0) == 20000.0f);
    CHECK(rp.layer_rope_theta(5) == 2000000.0f);
    j["rope_parameters"]["full_attention"] = {{"rope_type", "linear"}, {"factor", 8.0}};
    CHECK(parse_error(j).status() == LLM_ERR_UNSUPPORTED);
    CHECK_THAT(parse_error(j).what(), Catch::Contains("rope_parameters"));

    // Defaults where fields are absent: pattern 6, window 4096, scalar 256.
    j = base;
    j.erase("sliding_window_pattern");
    j.erase("sliding_window");
    j.erase("query_pre_attn_scalar");
    j["head_dim"] = 128;
    llm::ModelConfig d = parse(j).model;
    CHECK(d.window(0) == 4096);
    CHECK(d.window(5) == 0);
    CHECK(d.attention_scale == Approx(1.0 / 16.0)); // still sqrt(256), not sqrt(head_dim)
    j["query_pre_attn_scalar"] = 144;
    CHECK(parse(j).model.attention_scale == Approx(1.0 / 12.0));
    j["tie_word_embeddings"] = false;
    CHECK_FALSE(parse(j).tie_word_embeddings);
}

TEST_CASE("gemma3: config.json of Gemma-3-270M (layer_types written out)", "[hf][config][gemma3]") {
    // google/gemma-3-270m's config.json (transformers 4.55): the pattern
    // both as layer_types and as the private _sliding_window_pattern.
    llm::Json j = llm::parse_json(kGemma3_1b, "config.json");
    j["hidden_size"] = 640;
    j["intermediate_size"] = 2048;
    j["num_hidden_layers"] = 18;
    j["_sliding_window_pattern"] = 6;
    j.erase("sliding_window_pattern");
    j["layer_types"] = llm::Json::array();
    for (int l = 0; l < 18; ++l)
        j["layer_types"].push_back((l + 1) % 6 ? "sliding_attention" : "full_attention");
    j["use_bidirectional_attention"] = false;
    j["transformers_version"] = "4.55.0.dev0";
    const llm::ModelConfig c = parse(j).model;
    CHECK(c.dim == 640);
    CHECK(c.q_dim() == 1024);
    CHECK(c.embedding_scale == std::sqrt(640.0f));
    for (int32_t l = 0; l < 18; ++l) {
        INFO("layer " << l);
        CHECK(c.window(l) == (l == 5 || l == 11 || l == 17 ? 0 : 512));
    }
}

TEST_CASE("gemma3: what libllm does not implement is refused by name", "[hf][config][gemma3]") {
    const llm::Json base = llm::parse_json(kGemma3_1b, "config.json");
    struct Case {
        const char *field;
        llm::Json value;
    };
    const Case cases[] = {
        {"final_logit_softcapping", 30.0},
        {"attn_logit_softcapping", 50.0},
        {"hidden_activation", "gelu"},
        {"use_bidirectional_attention", true},
        {"attention_bias", true},
        {"rope_scaling", {{"rope_type", "linear"}, {"factor", 8.0}}},
        {"rope_scaling", {{"rope_type", "yarn"}, {"factor", 1.0}}},
        {"quantization_config", {{"quant_method", "gptq"}}},
    };
    for (const Case &c : cases) {
        llm::Json j = base;
        j[c.field] = c.value;
        const llm::Error e = parse_error(j);
        INFO(c.field << " = " << c.value.dump() << ": " << e.what());
        CHECK(e.status() == LLM_ERR_UNSUPPORTED);
        CHECK_THAT(e.what(), Catch::Contains(std::string("\"") + c.field + "\""));
    }
    // A linear factor of 1 changes nothing (the 1B's siblings sometimes say so).
    llm::Json j = base;
    j["rope_scaling"] = {{"rope_type", "linear"}, {"factor", 1.0}};
    CHECK(parse(j).model.layer_rope_theta(5) == 1e6f);
    // The multimodal checkpoint is named as such.
    j = base;
    j["model_type"] = "gemma3";
    CHECK(parse_error(j).status() == LLM_ERR_UNSUPPORTED);
    CHECK_THAT(parse_error(j).what(), Catch::Contains("gemma3_text"));
    j = base;
    j["sliding_window"] = 0;
    CHECK(parse_error(j).status() == LLM_ERR_BAD_DIMENSIONS);
    j = base;
    j["query_pre_attn_scalar"] = 0;
    CHECK(parse_error(j).status() == LLM_ERR_BAD_DIMENSIONS);
}

namespace {

// ---- a tiny Gemma 3 folder and a reference forward pass over its tensors ----

struct Tensors {
    std::map<std::string, std::vector<int64_t>> shape;
    std::map<std::string, std::vector<float>> data;
    void add(const std::string &name, std::vector<int64_t> dims, float lo, float hi) {
        size_t n = 1;
        for (int64_t d : dims)
            n *= static_cast<size_t>(d);
        shape[name] = dims;
        data[name] =
            uniform(n, static_cast<uint32_t>(std::hash<std::string>()(name) & 0xffffff), lo, hi);
    }
    const std::vector<float> &operator[](const std::string &name) const { return data.at(name); }
};

// Every value rounded to what bf16 holds (the reference then reads what a
// bf16 file stores).
Tensors rounded_to_bf16(Tensors t) {
    for (auto &entry : t.data)
        for (float &x : entry.second)
            x = llm::bf16_to_f32(llm::f32_to_bf16(x));
    return t;
}

// model.safetensors with every tensor fp32, or bf16 (values already bf16's).
void write_safetensors(const Tensors &t, const std::string &path, bool bf16 = false) {
    const size_t bytes = bf16 ? 2 : 4;
    llm::Json header = llm::Json::object();
    size_t offset = 0;
    for (const auto &[name, values] : t.data) {
        header[name] = {{"dtype", bf16 ? "BF16" : "F32"},
                        {"shape", t.shape.at(name)},
                        {"data_offsets", {offset, offset + values.size() * bytes}}};
        offset += values.size() * bytes;
    }
    std::string text = header.dump();
    while (text.size() % 8)
        text += ' ';
    std::ofstream out(path, std::ios::binary);
    const uint64_t len = text.size();
    out.write(reinterpret_cast<const char *>(&len), 8);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    for (const auto &entry : t.data) {
        if (!bf16) {
            out.write(reinterpret_cast<const char *>(entry.second.data()),
                      static_cast<std::streamsize>(entry.second.size() * 4));
            continue;
        }
        std::vector<uint16_t> half;
        for (float x : entry.second)
            half.push_back(llm::f32_to_bf16(x));
        out.write(reinterpret_cast<const char *>(half.data()),
                  static_cast<std::streamsize>(half.size() * 2));
    }
}

struct Tiny {
    int64_t dim = 48, hidden = 80, layers = 4, heads = 4, kv_heads = 2, hd = 16, vocab = 40;
    int64_t window = 3;
    double scalar = 24, eps = 1e-6, theta_global = 1e6, theta_local = 1e4;
    // layers 0 and 2 slide, 1 and 3 see everything
    bool sliding(int64_t l) const { return l % 2 == 0; }
};

Tensors tiny_tensors(const Tiny &m) {
    Tensors t;
    const float e = 0.5f, w = 1.0f / std::sqrt(static_cast<float>(m.dim));
    const float wh = 1.0f / std::sqrt(static_cast<float>(m.hidden));
    t.add("model.embed_tokens.weight", {m.vocab, m.dim}, -e, e);
    for (int64_t l = 0; l < m.layers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        // Norm weights around 0: the gains are 1 + w.
        for (const char *n : {"input_layernorm", "post_attention_layernorm",
                              "pre_feedforward_layernorm", "post_feedforward_layernorm"})
            t.add(p + n + ".weight", {m.dim}, -0.4f, 0.4f);
        t.add(p + "self_attn.q_norm.weight", {m.hd}, -0.4f, 0.4f);
        t.add(p + "self_attn.k_norm.weight", {m.hd}, -0.4f, 0.4f);
        t.add(p + "self_attn.q_proj.weight", {m.heads * m.hd, m.dim}, -w, w);
        t.add(p + "self_attn.k_proj.weight", {m.kv_heads * m.hd, m.dim}, -w, w);
        t.add(p + "self_attn.v_proj.weight", {m.kv_heads * m.hd, m.dim}, -w, w);
        t.add(p + "self_attn.o_proj.weight", {m.dim, m.heads * m.hd}, -w, w);
        t.add(p + "mlp.gate_proj.weight", {m.hidden, m.dim}, -2 * w, 2 * w);
        t.add(p + "mlp.up_proj.weight", {m.hidden, m.dim}, -2 * w, 2 * w);
        t.add(p + "mlp.down_proj.weight", {m.dim, m.hidden}, -wh, wh);
    }
    t.add("model.norm.weight", {m.dim}, -0.4f, 0.4f);
    return t;
}

std::string tiny_config(const Tiny &m) {
    llm::Json j = {{"architectures", {"Gemma3ForCausalLM"}},
                   {"model_type", "gemma3_text"},
                   {"hidden_size", m.dim},
                   {"intermediate_size", m.hidden},
                   {"num_hidden_layers", m.layers},
                   {"num_attention_heads", m.heads},
                   {"num_key_value_heads", m.kv_heads},
                   {"head_dim", m.hd},
                   {"vocab_size", m.vocab},
                   {"max_position_embeddings", 64},
                   {"hidden_activation", "gelu_pytorch_tanh"},
                   {"query_pre_attn_scalar", m.scalar},
                   {"rms_norm_eps", m.eps},
                   {"rope_theta", m.theta_global},
                   {"rope_local_base_freq", m.theta_local},
                   {"sliding_window", m.window},
                   {"sliding_window_pattern", 2},
                   {"final_logit_softcapping", nullptr},
                   {"attn_logit_softcapping", nullptr},
                   {"rope_scaling", nullptr},
                   {"eos_token_id", 1}};
    return j.dump(2);
}

using Vec = std::vector<double>;

// y = W x, W row-major [rows x cols] as stored.
Vec matvec(const std::vector<float> &w, const Vec &x, int64_t rows) {
    const int64_t cols = static_cast<int64_t>(x.size());
    Vec y(static_cast<size_t>(rows), 0.0);
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c)
            y[static_cast<size_t>(r)] +=
                double(w[static_cast<size_t>(r * cols + c)]) * x[static_cast<size_t>(c)];
    return y;
}

// Gemma's RMSNorm: x / sqrt(mean(x^2) + eps) * (1 + w).
Vec gemma_rmsnorm(const Vec &x, const float *w, double eps) {
    double ss = 0;
    for (double v : x)
        ss += v * v;
    const double inv = 1.0 / std::sqrt(ss / static_cast<double>(x.size()) + eps);
    Vec out(x.size());
    for (size_t i = 0; i < x.size(); ++i)
        out[i] = x[i] * inv * (1.0 + double(w[i]));
    return out;
}

// rotate_half RoPE on one head at `pos`: pairs (i, i + hd/2) turn by
// pos * theta^(-2i/hd).
void rope_half(double *v, int64_t hd, int64_t pos, double theta) {
    for (int64_t i = 0; i < hd / 2; ++i) {
        const double angle = static_cast<double>(pos) * std::pow(theta, -2.0 * i / hd);
        const double a = v[i], b = v[i + hd / 2];
        v[i] = a * std::cos(angle) - b * std::sin(angle);
        v[i + hd / 2] = a * std::sin(angle) + b * std::cos(angle);
    }
}

// Logits after every position of `tokens`, as Gemma 3's text model computes
// them (transformers' Gemma3ForCausalLM, every tensor in double).
std::vector<Vec> reference_logits(const Tiny &m, const Tensors &t,
                                  const std::vector<int32_t> &tokens) {
    const int64_t n = static_cast<int64_t>(tokens.size()), hd = m.hd;
    const std::vector<float> &embed = t["model.embed_tokens.weight"];
    std::vector<Vec> h(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) { // embedding * sqrt(hidden_size)
        h[static_cast<size_t>(i)].resize(static_cast<size_t>(m.dim));
        for (int64_t d = 0; d < m.dim; ++d)
            h[static_cast<size_t>(i)][static_cast<size_t>(d)] =
                embed[static_cast<size_t>(tokens[static_cast<size_t>(i)] * m.dim + d)] *
                std::sqrt(static_cast<double>(m.dim));
    }
    for (int64_t l = 0; l < m.layers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        const double theta = m.sliding(l) ? m.theta_local : m.theta_global;
        std::vector<Vec> q(static_cast<size_t>(n)), k(static_cast<size_t>(n)),
            v(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) {
            const Vec a = gemma_rmsnorm(h[static_cast<size_t>(i)],
                                        t[p + "input_layernorm.weight"].data(), m.eps);
            Vec &qi = q[static_cast<size_t>(i)] =
                matvec(t[p + "self_attn.q_proj.weight"], a, m.heads * hd);
            Vec &ki = k[static_cast<size_t>(i)] =
                matvec(t[p + "self_attn.k_proj.weight"], a, m.kv_heads * hd);
            v[static_cast<size_t>(i)] =
                matvec(t[p + "self_attn.v_proj.weight"], a, m.kv_heads * hd);
            for (int64_t hh = 0; hh < m.heads; ++hh) { // q_norm per head, then RoPE
                const Vec head(qi.begin() + hh * hd, qi.begin() + (hh + 1) * hd);
                const Vec normed =
                    gemma_rmsnorm(head, t[p + "self_attn.q_norm.weight"].data(), m.eps);
                std::copy(normed.begin(), normed.end(), qi.begin() + hh * hd);
                rope_half(&qi[static_cast<size_t>(hh * hd)], hd, i, theta);
            }
            for (int64_t hh = 0; hh < m.kv_heads; ++hh) {
                const Vec head(ki.begin() + hh * hd, ki.begin() + (hh + 1) * hd);
                const Vec normed =
                    gemma_rmsnorm(head, t[p + "self_attn.k_norm.weight"].data(), m.eps);
                std::copy(normed.begin(), normed.end(), ki.begin() + hh * hd);
                rope_half(&ki[static_cast<size_t>(hh * hd)], hd, i, theta);
            }
        }
        std::vector<Vec> next = h;
        for (int64_t i = 0; i < n; ++i) {
            // Position i sees j <= i, and on sliding layers j > i - window
            // (transformers' sliding_window_overlay: kv_idx > q_idx - window).
            Vec att(static_cast<size_t>(m.heads * hd), 0.0);
            for (int64_t hh = 0; hh < m.heads; ++hh) {
                const int64_t kvh = hh / (m.heads / m.kv_heads);
                std::vector<double> s;
                std::vector<int64_t> seen;
                for (int64_t j = 0; j <= i; ++j) {
                    if (m.sliding(l) && !(j > i - m.window)) continue;
                    double dot = 0;
                    for (int64_t d = 0; d < hd; ++d)
                        dot += q[static_cast<size_t>(i)][static_cast<size_t>(hh * hd + d)] *
                               k[static_cast<size_t>(j)][static_cast<size_t>(kvh * hd + d)];
                    s.push_back(dot / std::sqrt(m.scalar)); // query_pre_attn_scalar^-0.5
                    seen.push_back(j);
                }
                const double mx = *std::max_element(s.begin(), s.end());
                double total = 0;
                for (double &e : s)
                    total += (e = std::exp(e - mx));
                for (size_t c = 0; c < s.size(); ++c)
                    for (int64_t d = 0; d < hd; ++d)
                        att[static_cast<size_t>(hh * hd + d)] +=
                            s[c] / total *
                            v[static_cast<size_t>(seen[c])][static_cast<size_t>(kvh * hd + d)];
            }
            const Vec o = matvec(t[p + "self_attn.o_proj.weight"], att, m.dim);
            const Vec post =
                gemma_rmsnorm(o, t[p + "post_attention_layernorm.weight"].data(), m.eps);
            Vec &x = next[static_cast<size_t>(i)];
            for (int64_t d = 0; d < m.dim; ++d)
                x[static_cast<size_t>(d)] += post[static_cast<size_t>(d)];
            const Vec f = gemma_rmsnorm(x, t[p + "pre_feedforward_layernorm.weight"].data(), m.eps);
            const Vec gate = matvec(t[p + "mlp.gate_proj.weight"], f, m.hidden);
            const Vec up = matvec(t[p + "mlp.up_proj.weight"], f, m.hidden);
            Vec g(static_cast<size_t>(m.hidden));
            for (size_t c = 0; c < g.size(); ++c)
                g[c] = gelu_tanh(gate[c]) * up[c];
            const Vec down = matvec(t[p + "mlp.down_proj.weight"], g, m.dim);
            const Vec post_ffn =
                gemma_rmsnorm(down, t[p + "post_feedforward_layernorm.weight"].data(), m.eps);
            for (int64_t d = 0; d < m.dim; ++d)
                x[static_cast<size_t>(d)] += post_ffn[static_cast<size_t>(d)];
        }
        h = next;
    }
    std::vector<Vec> logits;
    for (const Vec &x : h) // final norm, tied embeddings as the classifier
        logits.push_back(
            matvec(embed, gemma_rmsnorm(x, t["model.norm.weight"].data(), m.eps), m.vocab));
    return logits;
}

double max_diff(const std::vector<float> &a, const Vec &b) {
    double d = 0;
    for (size_t i = 0; i < a.size(); ++i)
        d = std::max(d, std::fabs(double(a[i]) - b[i]));
    return d;
}

} // namespace

TEST_CASE("gemma3: a tiny Gemma 3 folder's logits match a double reference forward",
          "[engine][gemma3]") {
    const Tiny m;
    const Tensors tensors = tiny_tensors(m);
    const std::string dir = test::temp_dir();
    write_safetensors(tensors, dir + "/model.safetensors");
    { std::ofstream(dir + "/config.json") << tiny_config(m); }
    auto model = llm::load_hf_weights(dir, llm::LoadOptions{});
    const llm::ModelConfig &c = model->config;
    REQUIRE(c.arch == "gemma3");
    REQUIRE(c.window(0) == 3);
    REQUIRE(c.window(1) == 0);
    REQUIRE(model->weights.classifier.data == model->weights.token_embedding.data);
    // The (1 + w) gains are stored as the engine's weights.
    CHECK(model->weights.final_norm.data[0] == 1.0f + tensors["model.norm.weight"][0]);

    const std::vector<int32_t> tokens = {2, 17, 5, 39, 0, 11, 23, 8, 8, 30, 14, 1, 26, 7};
    const auto ref = reference_logits(m, tensors, tokens);
    const size_t n = tokens.size();
    const int64_t vocab = m.vocab;

    // Token by token (decode): every position's logits.
    for (int threads : {1, 2}) {
        llm::Transformer tf(*model, 32, threads);
        std::vector<float> logits(static_cast<size_t>(vocab));
        for (size_t i = 0; i < n; ++i) {
            tf.forward(&tokens[i], 1, static_cast<int32_t>(i), logits.data(), nullptr);
            INFO("decode, position " << i << ", " << threads << " threads");
            CHECK(max_diff(logits, ref[i]) < 1e-4);
        }
    }
    // The whole prompt as one batch, and in two batches (the second starting
    // past the window): the same last logits.
    for (size_t split : {n, size_t{5}, size_t{9}}) {
        llm::Transformer tf(*model, 32, 2);
        std::vector<float> logits(static_cast<size_t>(vocab));
        tf.forward(tokens.data(), static_cast<int64_t>(split), 0, logits.data(), nullptr);
        CHECK(max_diff(logits, ref[split - 1]) < 1e-4);
        if (split < n) {
            tf.forward(tokens.data() + split, static_cast<int64_t>(n - split),
                       static_cast<int32_t>(split), logits.data(), nullptr);
            INFO("batches split at " << split);
            CHECK(max_diff(logits, ref[n - 1]) < 1e-4);
        }
    }
    // Prefill then decode equals decode all the way (to float rounding).
    llm::Transformer a(*model, 32, 1), b(*model, 32, 1);
    std::vector<float> la(static_cast<size_t>(vocab)), lb(static_cast<size_t>(vocab));
    a.forward(tokens.data(), static_cast<int64_t>(n) - 1, 0, la.data(), nullptr);
    for (size_t i = 0; i + 1 < n; ++i)
        b.forward(&tokens[i], 1, static_cast<int32_t>(i), lb.data(), nullptr);
    double d = 0;
    for (size_t i = 0; i < la.size(); ++i)
        d = std::max(d, double(std::fabs(la[i] - lb[i])));
    CHECK(d < 1e-5);
    a.forward(&tokens[n - 1], 1, static_cast<int32_t>(n - 1), la.data(), nullptr);
    b.forward(&tokens[n - 1], 1, static_cast<int32_t>(n - 1), lb.data(), nullptr);
    d = 0;
    for (size_t i = 0; i < la.size(); ++i)
        d = std::max(d, double(std::fabs(la[i] - lb[i])));
    CHECK(d < 1e-5);

    // A missing Gemma norm is a named FORMAT error.
    Tensors missing = tensors;
    missing.data.erase("model.layers.2.post_feedforward_layernorm.weight");
    missing.shape.erase("model.layers.2.post_feedforward_layernorm.weight");
    write_safetensors(missing, dir + "/model.safetensors");
    const llm::Error e = test::error_of([&] { llm::load_hf_weights(dir, llm::LoadOptions{}); });
    CHECK(e.status() == LLM_ERR_FORMAT);
    CHECK_THAT(e.what(), Catch::Contains("post_feedforward_layernorm"));
}

TEST_CASE("gemma3: a bf16 Gemma 3 folder (norms widened, then 1 + w) matches the reference",
          "[engine][gemma3]") {
    const Tiny m;
    const Tensors tensors = rounded_to_bf16(tiny_tensors(m));
    const std::string dir = test::temp_dir();
    write_safetensors(tensors, dir + "/model.safetensors", true);
    { std::ofstream(dir + "/config.json") << tiny_config(m); }
    auto model = llm::load_hf_weights(dir, llm::LoadOptions{});
    REQUIRE(model->weights.layers[0].wq.type == llm::DType::BF16);
    const std::vector<int32_t> tokens = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3};
    const auto ref = reference_logits(m, tensors, tokens);
    llm::Transformer prefill(*model, 16, 2), decode(*model, 16, 2);
    std::vector<float> logits(static_cast<size_t>(m.vocab));
    prefill.forward(tokens.data(), static_cast<int64_t>(tokens.size()), 0, logits.data(), nullptr);
    CHECK(max_diff(logits, ref.back()) < 1e-4);
    for (size_t i = 0; i < tokens.size(); ++i) {
        decode.forward(&tokens[i], 1, static_cast<int32_t>(i), logits.data(), nullptr);
        INFO("position " << i);
        CHECK(max_diff(logits, ref[i]) < 1e-4);
    }
}

TEST_CASE("gemma3: llm-bench's new shapes build and run", "[engine][gemma3]") {
    // The shapes' configs pass validation; one decode step and a short
    // prefill on a cut-down copy of each (2 layers, small vocabulary) agree.
    for (const char *shape : {"qwen3-0.6b", "llama3.2-1b", "gemma3-1b"}) {
        llm::ModelConfig c;
        REQUIRE(llm::synthetic_config(shape, c));
        INFO(shape);
        CHECK(c.q_dim() == c.n_heads * c.head_dim);
        if (std::string(shape) == "gemma3-1b") {
            CHECK(c.window(0) == 512);
            CHECK(c.window(5) == 0);
            CHECK(c.layer_rope_theta(0) == 10000.0f);
            CHECK(c.layer_rope_theta(5) == 1000000.0f);
        }
        if (std::string(shape) == "llama3.2-1b") CHECK(c.rope_freq_divisors.size() == 32);
        // Cut down: the first 6 layers, vocabulary 512.
        c.n_layers = std::min(c.n_layers, 6);
        if (!c.layer_attention.empty()) c.layer_attention.resize(6);
        c.vocab_size = 512;
        auto model = llm::make_synthetic_model(c, llm::DType::F32, 3);
        llm::validate_weights(*model);
        const std::vector<int32_t> tokens = {1, 2, 3, 4, 5, 6, 7, 8};
        llm::Transformer batch(*model, 16, 2), step(*model, 16, 2);
        std::vector<float> lb(512), ls(512);
        batch.forward(tokens.data(), 8, 0, lb.data(), nullptr);
        for (int32_t i = 0; i < 8; ++i)
            step.forward(&tokens[static_cast<size_t>(i)], 1, i, ls.data(), nullptr);
        double d = 0, mag = 0;
        for (size_t i = 0; i < lb.size(); ++i) {
            CHECK(std::isfinite(lb[i]));
            d = std::max(d, double(std::fabs(lb[i] - ls[i])));
            mag = std::max(mag, double(std::fabs(ls[i])));
        }
        CHECK(d <= 1e-4 * std::max(1.0, mag));
    }
}

namespace {

// A tokenizer of n entries of which those from `special_from` on are special.
class StubTokenizer : public llm::Tokenizer {
  public:
    StubTokenizer(int32_t n, int32_t special_from) : n_(n), special_from_(special_from) {}
    int32_t vocab_size() const override { return n_; }
    std::vector<int32_t> encode(std::string_view, bool, bool) const override { return {}; }
    std::string piece(int32_t) const override { return "x"; }
    void decode_append(llm::DecodeState &, int32_t, bool, std::string &) const override {}
    bool is_special(int32_t id) const override { return id >= special_from_; }
    int32_t bos() const override { return -1; }
    int32_t eos() const override { return -1; }
    size_t max_piece_bytes() const override { return 1; }

  private:
    int32_t n_, special_from_;
};

} // namespace

TEST_CASE("gemma3: tokenizer entries past the model's rows must be special tokens",
          "[hf][gemma3]") {
    // Gemma 3's tokenizer.json has 262145 entries, <image_soft_token> at
    // 262144, one past the 1B's rows.
    llm::ModelConfig c;
    REQUIRE(llm::synthetic_config("stories15M", c));
    c.n_layers = 1;
    c.vocab_size = 64;
    auto model = llm::make_synthetic_model(c, llm::DType::F32, 1);
    model->tokenizer = std::make_unique<StubTokenizer>(65, 60);
    CHECK_NOTHROW(llm::validate_model(*model));
    model->tokenizer = std::make_unique<StubTokenizer>(66, 65);
    const llm::Error e = test::error_of([&] { llm::validate_model(*model); });
    CHECK(e.status() == LLM_ERR_TOKENIZER_MISMATCH);
    CHECK_THAT(e.what(), Catch::Contains("token 64 is not a special token"));
    // The engine refuses such an id as input.
    llm::Transformer tf(*model, 8, 1);
    const int32_t past = 64;
    CHECK(test::error_of([&] { tf.check_input(&past, 1, 0); }).status() ==
          LLM_ERR_TOKEN_OUT_OF_RANGE);
}
