#include "model_writer.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/mapped_file.h"
#include "kernels/float_convert.h"
#include "model_sources.h"

namespace llm::gen {

namespace {

using Json = nlohmann::json;

struct FileCloser {
    void operator()(std::FILE *f) const { std::fclose(f); }
};

class Output {
  public:
    explicit Output(const std::string &path) : path_(path), f_(std::fopen(path.c_str(), "wb")) {
        if (!f_) fail(LLM_ERR_IO, path, ": cannot create");
    }
    void write(const void *p, size_t n) {
        if (n && std::fwrite(p, 1, n, f_.get()) != n) fail(LLM_ERR_IO, path_, ": write failed");
    }
    void close() {
        if (std::fclose(f_.release()) != 0) fail(LLM_ERR_IO, path_, ": write failed");
    }

  private:
    std::string path_;
    std::unique_ptr<std::FILE, FileCloser> f_;
};

const char *safetensors_dtype(DType t) {
    switch (t) {
    case DType::F32: return "F32";
    case DType::BF16: return "BF16";
    case DType::F16: return "F16";
    default: fail(LLM_ERR_INVALID_ARGUMENT, "safetensors files hold F32, BF16 or F16");
    }
}

// A float config value as the short decimal it was written as (1e-05, not
// 9.999999747378752e-06).
double short_decimal(float v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.7g", static_cast<double>(v));
    return std::strtod(buf, nullptr);
}

size_t element_bytes(DType t) {
    return t == DType::F32 ? 4 : 2;
}

uint64_t tensor_bytes(const TensorSource &t, DType dtype) {
    uint64_t n = element_bytes(dtype);
    for (int64_t d : t.shape)
        n *= static_cast<uint64_t>(d);
    return n;
}

// Streams a tensor's rows to `out` as `dtype`.
void write_rows(Output &out, const TensorSource &t, DType dtype) {
    std::vector<float> row(static_cast<size_t>(t.cols()));
    std::vector<uint16_t> half(row.size());
    for (int64_t r = 0; r < t.rows(); ++r) {
        t.row(r, row.data());
        if (dtype == DType::F32) {
            out.write(row.data(), row.size() * 4);
            continue;
        }
        for (size_t i = 0; i < row.size(); ++i)
            half[i] = dtype == DType::BF16 ? f32_to_bf16(row[i]) : f32_to_f16(row[i]);
        out.write(half.data(), half.size() * 2);
    }
}

} // namespace

float hf_norm_shift(const ModelConfig &c) {
    return c.arch == "gemma3" ? 1.0f : 0.0f;
}

std::vector<TensorSource> hf_tensor_layout(const ModelSpec &spec) {
    const ModelConfig &c = spec.config;
    const int64_t dim = c.dim, hidden = c.hidden_dim, q = c.q_dim(), kv = c.kv_dim();
    std::vector<TensorSource> out;
    auto add = [&](std::string name, std::vector<int64_t> shape) {
        out.push_back(TensorSource{std::move(name), std::move(shape), nullptr});
    };
    add("model.embed_tokens.weight", {c.vocab_size, dim});
    for (int32_t i = 0; i < c.n_layers; ++i) {
        const std::string p = "model.layers." + std::to_string(i) + ".";
        add(p + "input_layernorm.weight", {dim});
        add(p + "self_attn.q_proj.weight", {q, dim});
        add(p + "self_attn.k_proj.weight", {kv, dim});
        add(p + "self_attn.v_proj.weight", {kv, dim});
        if (c.qk_norm) {
            add(p + "self_attn.q_norm.weight", {c.head_dim});
            add(p + "self_attn.k_norm.weight", {c.head_dim});
        }
        if (c.qkv_bias) {
            add(p + "self_attn.q_proj.bias", {q});
            add(p + "self_attn.k_proj.bias", {kv});
            add(p + "self_attn.v_proj.bias", {kv});
        }
        add(p + "self_attn.o_proj.weight", {dim, q});
        add(p + "post_attention_layernorm.weight", {dim});
        if (c.post_norms) { // Gemma: post_attention_layernorm is the attention output's
            add(p + "pre_feedforward_layernorm.weight", {dim});
            add(p + "post_feedforward_layernorm.weight", {dim});
        }
        add(p + "mlp.gate_proj.weight", {hidden, dim});
        add(p + "mlp.up_proj.weight", {hidden, dim});
        add(p + "mlp.down_proj.weight", {dim, hidden});
    }
    add("model.norm.weight", {dim});
    if (!spec.tied) add("lm_head.weight", {c.vocab_size, dim});
    return out;
}

void write_safetensors(const std::string &path, const std::vector<TensorSource> &tensors,
                       DType dtype) {
    Json header = Json::object();
    header["__metadata__"] = {{"format", "pt"}};
    uint64_t offset = 0;
    for (const TensorSource &t : tensors) {
        const uint64_t n = tensor_bytes(t, dtype);
        header[t.name] = {{"dtype", safetensors_dtype(dtype)},
                          {"shape", t.shape},
                          {"data_offsets", {offset, offset + n}}};
        offset += n;
    }
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' '); // keeps the data 8-byte aligned
    uint8_t len[8];
    for (int i = 0; i < 8; ++i)
        len[i] = static_cast<uint8_t>(static_cast<uint64_t>(text.size()) >> (8 * i));
    Output out(path);
    out.write(len, 8);
    out.write(text.data(), text.size());
    for (const TensorSource &t : tensors)
        write_rows(out, t, dtype);
    out.close();
}

std::string hf_config_json(const ModelSpec &spec, DType dtype) {
    const ModelConfig &c = spec.config;
    const bool qwen = c.arch == "qwen2" || c.arch == "qwen3", gemma3 = c.arch == "gemma3";
    const char *architecture = c.arch == "qwen2"   ? "Qwen2ForCausalLM"
                               : c.arch == "qwen3" ? "Qwen3ForCausalLM"
                               : gemma3            ? "Gemma3ForCausalLM"
                                                   : "LlamaForCausalLM";
    Json j;
    j["architectures"] = {architecture};
    j["model_type"] = gemma3 ? "gemma3_text" : c.arch;
    if (gemma3)
        j["hidden_activation"] = "gelu_pytorch_tanh";
    else
        j["hidden_act"] = "silu";
    j["hidden_size"] = c.dim;
    j["intermediate_size"] = c.hidden_dim;
    j["num_hidden_layers"] = c.n_layers;
    j["num_attention_heads"] = c.n_heads;
    j["num_key_value_heads"] = c.n_kv_heads;
    if (c.head_dim * c.n_heads != c.dim || c.arch == "qwen3" || gemma3) j["head_dim"] = c.head_dim;
    j["vocab_size"] = c.vocab_size;
    j["max_position_embeddings"] = c.max_seq_len;
    j["rope_theta"] = short_decimal(c.rope_theta);
    j["rms_norm_eps"] = short_decimal(c.norm_eps);
    j["rope_scaling"] = nullptr;
    const Llama3RopeScaling &r = spec.llama3_rope;
    // A loaded model keeps only the divisors, which config.json cannot say.
    if (r.factor <= 0 && !c.rope_freq_divisors.empty())
        fail(LLM_ERR_UNSUPPORTED, "the model's RoPE frequency divisors (Llama 3's rope scaling) "
                                  "have no config.json form without rope_scaling's fields");
    if (r.factor > 0)
        j["rope_scaling"] = {{"rope_type", "llama3"},
                             {"factor", r.factor},
                             {"low_freq_factor", r.low_freq_factor},
                             {"high_freq_factor", r.high_freq_factor},
                             {"original_max_position_embeddings", r.original_max_positions}};
    j["tie_word_embeddings"] = spec.tied;
    j["torch_dtype"] = dtype == DType::F32    ? "float32"
                       : dtype == DType::BF16 ? "bfloat16"
                                              : "float16";
    if (qwen) {
        j["use_sliding_window"] = false;
        j["sliding_window"] = c.max_seq_len;
        j["max_window_layers"] = c.n_layers;
        if (c.arch == "qwen3") j["attention_bias"] = false;
    } else if (gemma3) {
        // The layers' kinds as layer_types; the window and local theta from
        // the first sliding layer.
        Json types = Json::array();
        int32_t window = 0;
        float local_theta = 10000.0f;
        for (int32_t i = 0; i < c.n_layers; ++i) {
            const LayerAttention a = c.attention_of(i);
            types.push_back(a.window > 0 ? "sliding_attention" : "full_attention");
            if (a.window > 0 && window == 0) {
                window = a.window;
                local_theta = c.layer_rope_theta(i);
            }
        }
        j["layer_types"] = types;
        j["sliding_window"] = window > 0 ? window : c.max_seq_len;
        j["rope_local_base_freq"] = short_decimal(local_theta);
        const float scale = c.attention_scores_scale();
        j["query_pre_attn_scalar"] = short_decimal(1.0f / (scale * scale));
        j["attention_bias"] = false;
    } else {
        j["attention_bias"] = false;
        j["mlp_bias"] = false;
    }
    if (spec.bos >= 0) j["bos_token_id"] = spec.bos;
    if (!spec.eos.empty()) j["eos_token_id"] = spec.eos[0];
    return j.dump(2) + "\n";
}

void write_hf_folder(const std::string &dir, const ModelSpec &spec,
                     const std::vector<TensorSource> &tensors, const HfWriteOptions &options) {
    auto write_text = [&](const std::string &name, const std::string &text) {
        Output out(path_join(dir, name));
        out.write(text.data(), text.size());
        out.close();
    };
    write_text("config.json", hf_config_json(spec, options.dtype));
    Json gen = Json::object();
    if (spec.bos >= 0) gen["bos_token_id"] = spec.bos;
    if (!spec.eos.empty()) gen["eos_token_id"] = spec.eos;
    write_text("generation_config.json", gen.dump(2) + "\n");

    const size_t shards = std::min<size_t>(std::max(options.shards, 1), tensors.size());
    if (shards == 1) {
        write_safetensors(path_join(dir, "model.safetensors"), tensors, options.dtype);
        return;
    }
    // Contiguous groups of about total/shards bytes each.
    uint64_t total = 0;
    for (const TensorSource &t : tensors)
        total += tensor_bytes(t, options.dtype);
    Json weight_map = Json::object();
    size_t next = 0;
    uint64_t written = 0;
    for (size_t s = 0; s < shards; ++s) {
        char name[64];
        std::snprintf(name, sizeof name, "model-%05zu-of-%05zu.safetensors", s + 1, shards);
        std::vector<TensorSource> group;
        const uint64_t target = total * (s + 1) / shards;
        const size_t must_leave = shards - s - 1; // later shards need a tensor each
        while (next < tensors.size() - must_leave &&
               (group.empty() || written < target || s + 1 == shards)) {
            written += tensor_bytes(tensors[next], options.dtype);
            weight_map[tensors[next].name] = name;
            group.push_back(tensors[next++]);
        }
        write_safetensors(path_join(dir, name), group, options.dtype);
    }
    Json index = {{"metadata", {{"total_size", total}}}, {"weight_map", weight_map}};
    write_text("model.safetensors.index.json", index.dump(2) + "\n");
}

void write_llama2c(const std::string &path, const ModelSpec &spec,
                   const std::vector<TensorSource> &tensors) {
    const ModelConfig &c = spec.config;
    if (c.arch != "llama" || c.qkv_bias || c.head_dim * c.n_heads != c.dim)
        fail(LLM_ERR_UNSUPPORTED, path,
             ": llama2.c checkpoints hold Llama models without biases and with "
             "head_dim = dim / n_heads");
    std::map<std::string, const TensorSource *> by_name;
    for (const TensorSource &t : tensors)
        by_name[t.name] = &t;
    auto get = [&](const std::string &name) -> const TensorSource & {
        auto it = by_name.find(name);
        if (it == by_name.end()) fail(LLM_ERR_INVALID_ARGUMENT, "no tensor ", name);
        return *it->second;
    };
    const int32_t header[7] = {c.dim,        c.hidden_dim, c.n_layers,
                               c.n_heads,    c.n_kv_heads, spec.tied ? c.vocab_size : -c.vocab_size,
                               c.max_seq_len};
    Output out(path);
    out.write(header, sizeof header);
    std::vector<float> row;
    // Writes tensor `name`; for q/k (`rope_heads`), rows go back to
    // llama2.c's interleaved order.
    auto put = [&](const std::string &name, bool rope_rows) {
        const TensorSource &t = get(name);
        row.resize(static_cast<size_t>(t.cols()));
        for (int64_t r = 0; r < t.rows(); ++r) {
            t.row(rope_rows ? half_split_row_of_interleaved(r, c.head_dim) : r, row.data());
            out.write(row.data(), row.size() * 4);
        }
    };
    auto per_layer = [&](const char *suffix, bool rope_rows = false) {
        for (int32_t i = 0; i < c.n_layers; ++i)
            put("model.layers." + std::to_string(i) + "." + suffix, rope_rows);
    };
    put("model.embed_tokens.weight", false);
    per_layer("input_layernorm.weight");
    per_layer("self_attn.q_proj.weight", true);
    per_layer("self_attn.k_proj.weight", true);
    per_layer("self_attn.v_proj.weight");
    per_layer("self_attn.o_proj.weight");
    per_layer("post_attention_layernorm.weight");
    per_layer("mlp.gate_proj.weight");
    per_layer("mlp.down_proj.weight");
    per_layer("mlp.up_proj.weight");
    put("model.norm.weight", false);
    // freq_cis_real and freq_cis_imag, computed in float32 as llama2.c's
    // export does (run.c recomputes RoPE and ignores them).
    const int32_t half = c.head_dim / 2;
    for (int part = 0; part < 2; ++part)
        for (int32_t pos = 0; pos < c.max_seq_len; ++pos) {
            row.assign(static_cast<size_t>(half), 0.0f);
            for (int32_t i = 0; i < half; ++i) {
                const float freq =
                    1.0f / std::pow(c.rope_theta,
                                    static_cast<float>(2 * i) / static_cast<float>(c.head_dim));
                const float angle = static_cast<float>(pos) * freq;
                row[static_cast<size_t>(i)] = part == 0 ? std::cos(angle) : std::sin(angle);
            }
            out.write(row.data(), row.size() * 4);
        }
    if (!spec.tied) put("lm_head.weight", false);
    out.close();
}

} // namespace llm::gen
