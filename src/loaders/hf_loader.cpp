#include "loaders/hf_loader.h"

#include <algorithm>
#include <cstring>
#include <set>

#include "chat/chat_template.h"
#include "common/error.h"
#include "common/json.h"
#include "kernels/kernels.h"
#include "loaders/hf_config.h"
#include "loaders/loader.h"
#include "loaders/safetensors.h"
#include "tokenizer/hf_tokenizer.h"

namespace llm {

namespace {

constexpr size_t kMaxConfigBytes = 16u << 20;

std::string shape_str(const std::vector<int64_t> &shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i)
        s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

// Hands out the tensors of a SafetensorsSet as the engine's views, checking
// each against the shape config.json implies, and remembers which were used
// so that leftovers can be reported.
class TensorBinder {
  public:
    TensorBinder(const SafetensorsSet &set, Model &model) : set_(set), model_(model) {}

    bool has(const std::string &name) const { return set_.tensors.count(name) != 0; }

    Matrix matrix(const std::string &name, int64_t rows, int64_t cols) {
        const SafeTensor &t = take(name, {rows, cols});
        return Matrix{aligned_data(t), t.dtype, rows, cols};
    }

    // Norm gains and biases: widened to fp32 in storage the model owns
    // (plus `offset`).
    Vector vector(const std::string &name, int64_t n, float offset = 0.0f) {
        const SafeTensor &t = take(name, {n});
        float *out = reinterpret_cast<float *>(model_.allocate(static_cast<size_t>(n) * 4));
        matrix_row_f32(Matrix{aligned_data(t), t.dtype, 1, n}, 0, out);
        if (offset != 0.0f)
            for (int64_t i = 0; i < n; ++i)
                out[i] += offset;
        return Vector{out, n};
    }

    // An RMSNorm's weight as the engine's gain: the file's values + offset
    // (1 for Gemma's x / rms * (1 + w), added in fp32 as transformers does).
    Vector norm(const std::string &name, int64_t n, float offset) {
        return vector(name, n, offset);
    }

    // Every tensor of the files must have been bound (buffers that
    // transformers recomputes, such as rotary_emb.inv_freq, excepted).
    void check_all_used() const {
        for (const auto &[name, t] : set_.tensors) {
            if (used_.count(name)) continue;
            const std::string buffer = ".rotary_emb.inv_freq";
            if (name.size() > buffer.size() &&
                name.compare(name.size() - buffer.size(), buffer.size(), buffer) == 0)
                continue;
            fail(LLM_ERR_FORMAT, t.file, ": unexpected tensor \"", name, "\" (not part of a ",
                 model_.config.arch, " model with this config.json)");
        }
    }

  private:
    const SafeTensor &take(const std::string &name, const std::vector<int64_t> &shape) {
        auto it = set_.tensors.find(name);
        if (it == set_.tensors.end()) fail(LLM_ERR_FORMAT, "missing tensor \"", name, "\"");
        const SafeTensor &t = it->second;
        if (t.shape != shape)
            fail(LLM_ERR_BAD_DIMENSIONS, t.file, ": tensor \"", name, "\" has shape ",
                 shape_str(t.shape), " but config.json implies ", shape_str(shape));
        used_.insert(name);
        return t;
    }

    // The kernels read values in place, so data must be aligned to its
    // element size. Files written by the safetensors library are (the header
    // is padded to 8 bytes); other files get an aligned copy.
    const void *aligned_data(const SafeTensor &t) {
        const size_t align = t.dtype == DType::F32 ? 4 : 2;
        if (reinterpret_cast<uintptr_t>(t.data) % align == 0) return t.data;
        uint8_t *copy = model_.allocate(t.bytes);
        std::memcpy(copy, t.data, t.bytes);
        return copy;
    }

    const SafetensorsSet &set_;
    Model &model_;
    std::set<std::string> used_;
};

void bind_weights(const SafetensorsSet &set, const HfConfig &hc, Model &model) {
    const ModelConfig &c = model.config;
    ModelWeights &w = model.weights;
    TensorBinder b(set, model);
    const int64_t dim = c.dim, hidden = c.hidden_dim, q_dim = c.q_dim(), kv_dim = c.kv_dim();
    const float offset = hc.norm_offset;
    w.token_embedding = b.matrix("model.embed_tokens.weight", c.vocab_size, dim);
    w.layers.resize(static_cast<size_t>(c.n_layers));
    for (int32_t i = 0; i < c.n_layers; ++i) {
        LayerWeights &l = w.layers[static_cast<size_t>(i)];
        const std::string p = "model.layers." + std::to_string(i) + ".";
        l.attn_norm = b.norm(p + "input_layernorm.weight", dim, offset);
        l.wq = b.matrix(p + "self_attn.q_proj.weight", q_dim, dim);
        l.wk = b.matrix(p + "self_attn.k_proj.weight", kv_dim, dim);
        l.wv = b.matrix(p + "self_attn.v_proj.weight", kv_dim, dim);
        if (c.qk_norm) {
            l.q_norm = b.norm(p + "self_attn.q_norm.weight", c.head_dim, offset);
            l.k_norm = b.norm(p + "self_attn.k_norm.weight", c.head_dim, offset);
        }
        if (c.qkv_bias) {
            l.bq = b.vector(p + "self_attn.q_proj.bias", q_dim);
            l.bk = b.vector(p + "self_attn.k_proj.bias", kv_dim);
            l.bv = b.vector(p + "self_attn.v_proj.bias", kv_dim);
        }
        l.wo = b.matrix(p + "self_attn.o_proj.weight", dim, q_dim);
        if (c.post_norms) {
            // Gemma's four norms: post_attention_layernorm is the attention
            // output's (in Llama/Qwen it is the FFN's input norm).
            l.post_attn_norm = b.norm(p + "post_attention_layernorm.weight", dim, offset);
            l.ffn_norm = b.norm(p + "pre_feedforward_layernorm.weight", dim, offset);
            l.post_ffn_norm = b.norm(p + "post_feedforward_layernorm.weight", dim, offset);
        } else {
            l.ffn_norm = b.norm(p + "post_attention_layernorm.weight", dim, offset);
        }
        l.w_gate = b.matrix(p + "mlp.gate_proj.weight", hidden, dim);
        l.w_up = b.matrix(p + "mlp.up_proj.weight", hidden, dim);
        l.w_down = b.matrix(p + "mlp.down_proj.weight", dim, hidden);
    }
    w.final_norm = b.norm("model.norm.weight", dim, offset);
    if (hc.tie_word_embeddings) {
        if (b.has("lm_head.weight"))
            fail(LLM_ERR_FORMAT, "tensor \"lm_head.weight\" is present although config.json sets "
                                 "tie_word_embeddings (which of the two is meant?)");
        w.classifier = w.token_embedding;
    } else {
        w.classifier = b.matrix("lm_head.weight", c.vocab_size, dim);
    }
    b.check_all_used();
}

SafetensorsSet open_weights(const std::string &path, const std::string &folder, bool use_mmap) {
    if (!path_is_directory(path)) return open_safetensors(path, use_mmap);
    const std::string single = path_join(folder, "model.safetensors");
    if (path_exists(single)) return open_safetensors(single, use_mmap);
    const std::string index = path_join(folder, "model.safetensors.index.json");
    if (path_exists(index)) return open_safetensors_index(index, use_mmap);
    if (path_exists(path_join(folder, "pytorch_model.bin")) ||
        path_exists(path_join(folder, "pytorch_model.bin.index.json")))
        fail(LLM_ERR_UNSUPPORTED, folder,
             ": PyTorch pickle weights (pytorch_model.bin) are not supported; libllm reads "
             "model.safetensors");
    fail(LLM_ERR_NOT_FOUND, folder, ": no model.safetensors or model.safetensors.index.json");
}

// End-of-generation ids: generation_config.json's, then config.json's.
std::vector<int32_t> eog_ids(const std::string &folder, const HfConfig &hc) {
    std::vector<int32_t> ids;
    const std::string gen = path_join(folder, "generation_config.json");
    if (path_exists(gen)) ids = parse_generation_eos(read_text_file(gen, kMaxConfigBytes), gen);
    for (int32_t id : hc.eos_token_ids)
        if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
    return ids;
}

// A special token named in tokenizer_config.json: a string or an AddedToken
// object's content; "" if absent or null.
std::string special_token_of(const Json &config, const char *key) {
    if (!config.is_object() || !config.contains(key)) return "";
    const Json &v = config[key];
    if (v.is_string()) return v.get<std::string>();
    if (v.is_object() && v.contains("content") && v["content"].is_string())
        return v["content"].get<std::string>();
    return "";
}

// tokenizer_config.json's chat_template: a string, or a list of named
// templates of which "default" is the one transformers uses.
std::string chat_template_of(const Json &j) {
    if (!j.is_object() || !j.contains("chat_template")) return "";
    const Json &t = j["chat_template"];
    if (t.is_string()) return t.get<std::string>();
    if (t.is_array())
        for (const Json &named : t)
            if (named.is_object() && named.value("name", Json()) == "default" &&
                named.contains("template") && named["template"].is_string())
                return named["template"].get<std::string>();
    return "";
}

} // namespace

std::string hf_folder_of(const std::string &path) {
    return path_is_directory(path) ? path : path_dirname(path);
}

std::unique_ptr<Model> load_hf_weights(const std::string &path, const LoadOptions &options) {
    const std::string folder = hf_folder_of(path);
    const std::string config_path = path_join(folder, "config.json");
    if (!path_exists(config_path))
        fail(LLM_ERR_NOT_FOUND, folder,
             ": no config.json (a Hugging Face model folder needs config.json, "
             "model.safetensors and tokenizer.json)");
    const HfConfig hc = parse_hf_config(read_text_file(config_path, kMaxConfigBytes), config_path);

    auto model = std::make_unique<Model>();
    model->format = "safetensors";
    model->config = hc.model;
    SafetensorsSet set = open_weights(path, folder, options.use_mmap);
    bind_weights(set, hc, *model);
    model->files = std::move(set.files);
    model->eog_tokens = eog_ids(folder, hc);
    validate_weights(*model);
    return model;
}

std::unique_ptr<Model> load_hf_folder(const std::string &path, const LoadOptions &options) {
    auto model = load_hf_weights(path, options);
    const std::string folder = hf_folder_of(path);
    const std::string tok_config = path_join(folder, "tokenizer_config.json");
    const bool has_tok_config = path_exists(tok_config);
    model->tokenizer =
        load_hf_tokenizer(path_join(folder, "tokenizer.json"), has_tok_config ? tok_config : "");
    if (model->eog_tokens.empty() && model->tokenizer->eos() >= 0)
        model->eog_tokens.push_back(model->tokenizer->eos());
    // The chat template: chat_template.jinja, as transformers prefers it, else
    // tokenizer_config.json's.
    Json tok_json;
    if (has_tok_config)
        tok_json = parse_json(read_text_file(tok_config, kMaxConfigBytes), tok_config);
    const std::string jinja_file = path_join(folder, "chat_template.jinja");
    std::string chat_template = path_exists(jinja_file)
                                    ? read_text_file(jinja_file, kMaxConfigBytes)
                                    : chat_template_of(tok_json);
    set_model_chat_template(*model, std::move(chat_template),
                            special_token_of(tok_json, "bos_token"),
                            special_token_of(tok_json, "eos_token"));
    validate_model(*model);
    return model;
}

} // namespace llm
