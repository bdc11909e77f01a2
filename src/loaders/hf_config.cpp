#include "loaders/hf_config.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "common/error.h"
#include "common/json.h"

namespace llm {

namespace {

// Typed access to the top-level fields of a config file. A field that is
// absent or null takes the default (transformers' own default for that
// model class); a present field of the wrong type is a FORMAT error.
class Fields {
  public:
    Fields(const Json &j, const std::string &path) : j_(j), path_(path) {}

    const Json *get(const char *key) const {
        auto it = j_.find(key);
        return it == j_.end() || it->is_null() ? nullptr : &*it;
    }
    bool has(const char *key) const { return get(key) != nullptr; }

    int64_t integer(const char *key) const {
        const Json *v = get(key);
        if (!v) fail(LLM_ERR_FORMAT, path_, ": no \"", key, "\"");
        return to_integer(*v, key);
    }
    int64_t integer(const char *key, int64_t fallback) const {
        return has(key) ? integer(key) : fallback;
    }
    double number(const char *key, double fallback) const {
        const Json *v = get(key);
        if (!v) return fallback;
        if (!v->is_number()) fail(LLM_ERR_FORMAT, path_, ": \"", key, "\" must be a number");
        return v->get<double>();
    }
    bool boolean(const char *key, bool fallback) const {
        const Json *v = get(key);
        if (!v) return fallback;
        if (!v->is_boolean()) fail(LLM_ERR_FORMAT, path_, ": \"", key, "\" must be true or false");
        return v->get<bool>();
    }
    std::string string(const char *key, const std::string &fallback) const {
        const Json *v = get(key);
        if (!v) return fallback;
        if (!v->is_string()) fail(LLM_ERR_FORMAT, path_, ": \"", key, "\" must be a string");
        return v->get<std::string>();
    }

    // An integer value, saturated to int64 (so range checks see huge values
    // as huge rather than wrapped).
    int64_t to_integer(const Json &v, const char *key) const {
        if (v.is_number_unsigned()) {
            uint64_t u = v.get<uint64_t>();
            return u > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(u);
        }
        if (v.is_number_integer()) return v.get<int64_t>();
        fail(LLM_ERR_FORMAT, path_, ": \"", key, "\" must be an integer, not ", v.dump());
    }

    const std::string &path() const { return path_; }

  private:
    const Json &j_;
    const std::string &path_;
};

Json parse_object(const std::string &text, const std::string &path) {
    Json j = parse_json(text, path);
    if (!j.is_object()) fail(LLM_ERR_FORMAT, path, ": not a JSON object");
    return j;
}

// eos_token_id: an id, a list of ids, or absent/null.
std::vector<int32_t> eos_ids(const Fields &f) {
    std::vector<int32_t> out;
    const Json *v = f.get("eos_token_id");
    if (!v) return out;
    auto add = [&](const Json &id) {
        int64_t n = f.to_integer(id, "eos_token_id");
        if (n < 0 || n > INT32_MAX)
            fail(LLM_ERR_FORMAT, f.path(), ": eos_token_id ", n, " is not a token id");
        out.push_back(static_cast<int32_t>(n));
    };
    if (v->is_array())
        for (const Json &id : *v)
            add(id);
    else
        add(*v);
    return out;
}

[[noreturn]] void unsupported(const std::string &path, const char *field, const std::string &why) {
    fail(LLM_ERR_UNSUPPORTED, path, ": \"", field, "\" ", why, " is not supported");
}

// Qwen2's sliding-window attention (transformers' rule: layer i uses the
// window when use_sliding_window and i >= max_window_layers, or as
// layer_types says). A window no shorter than the context changes nothing.
void check_sliding_window(const Fields &f, int64_t n_layers, int64_t max_positions) {
    if (!f.has("sliding_window")) return;
    const int64_t window = f.integer("sliding_window");
    if (window >= max_positions) return;
    bool any_windowed = false;
    if (const Json *types = f.get("layer_types")) {
        if (!types->is_array()) fail(LLM_ERR_FORMAT, f.path(), ": \"layer_types\" is not a list");
        for (const Json &t : *types)
            any_windowed |= t.is_string() && t.get<std::string>() == "sliding_attention";
    } else if (f.boolean("use_sliding_window", false)) {
        any_windowed = f.integer("max_window_layers", n_layers) < n_layers;
    }
    if (any_windowed)
        unsupported(f.path(), "use_sliding_window",
                    "(attention window " + std::to_string(window) + " shorter than " +
                        std::to_string(max_positions) + " positions)");
}

// Llama 3's rope_scaling ({"rope_type": "llama3", "factor",
// "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"})
// as the divisor of each frequency, per transformers'
// _compute_llama3_parameters: wavelengths shorter than original / high_freq
// keep their frequency, longer than original / low_freq are divided by
// factor, and those between blend the two. Other types are refused by name.
std::vector<float> rope_scaling_divisors(const Json &scaling, const std::string &path,
                                         int64_t head_dim, double theta) {
    if (!scaling.is_object()) fail(LLM_ERR_FORMAT, path, ": \"rope_scaling\" is not an object");
    const Fields f(scaling, path);
    const std::string type = f.string("rope_type", f.string("type", ""));
    if (type == "default") return {};
    if (type != "llama3") unsupported(path, "rope_scaling", scaling.dump());
    const double factor = f.number("factor", 8.0), low = f.number("low_freq_factor", 1.0),
                 high = f.number("high_freq_factor", 4.0),
                 original = f.number("original_max_position_embeddings", 8192.0);
    if (!(factor >= 1.0 && factor < 1e6) || !(low > 0.0) || !(high > low) ||
        !(original >= 1.0 && original < 1e9))
        fail(LLM_ERR_BAD_DIMENSIONS, path, ": rope_scaling ", scaling.dump(),
             " needs factor >= 1, 0 < low_freq_factor < high_freq_factor and a positive "
             "original_max_position_embeddings");
    return llama3_rope_divisors(head_dim, theta, factor, low, high, original);
}

// A RoPE description that must change nothing: absent, "default", or
// "linear" with factor 1 (Gemma 3's rope_scaling, which would apply to its
// global layers only, and the entries of its rope_parameters).
void expect_plain_rope(const Json *rope, const std::string &path, const char *field) {
    if (!rope) return;
    if (!rope->is_object()) fail(LLM_ERR_FORMAT, path, ": \"", field, "\" is not an object");
    const Fields f(*rope, path);
    const std::string type = f.string("rope_type", f.string("type", "default"));
    if (type == "default" || (type == "linear" && f.number("factor", 1.0) == 1.0)) return;
    unsupported(path, field, rope->dump());
}

// Gemma 3's own fields: the attention of each layer (sliding window and
// local RoPE theta on "sliding_attention" layers, rope_theta on the others),
// the scales and norms, refusals of what it does not use.
void read_gemma3(const Fields &f, int64_t n_layers, int64_t dim, HfConfig &out) {
    const std::string &path = f.path();
    ModelConfig &c = out.model;
    const std::string act = f.string("hidden_activation", "gelu_pytorch_tanh");
    if (act != "gelu_pytorch_tanh")
        unsupported(path, "hidden_activation", "\"" + act + "\" (only gelu_pytorch_tanh)");
    for (const char *cap : {"final_logit_softcapping", "attn_logit_softcapping"})
        if (const Json *v = f.get(cap))
            unsupported(path, cap, v->dump() + " (Gemma 2's softcapping)");
    if (f.boolean("use_bidirectional_attention", false))
        unsupported(path, "use_bidirectional_attention", "true (an embedding model)");

    double global_theta = f.number("rope_theta", 1000000.0);
    double local_theta = f.number("rope_local_base_freq", 10000.0);
    expect_plain_rope(f.get("rope_scaling"), path, "rope_scaling");
    if (const Json *params = f.get("rope_parameters")) {
        // transformers 5's form: {"full_attention": {...}, "sliding_attention": {...}}.
        if (!params->is_object())
            fail(LLM_ERR_FORMAT, path, ": \"rope_parameters\" is not an object");
        const Fields p(*params, path);
        for (const char *kind : {"full_attention", "sliding_attention"}) {
            const Json *entry = p.get(kind);
            expect_plain_rope(entry, path, "rope_parameters");
            if (!entry) continue;
            const double theta = Fields(*entry, path).number("rope_theta", 0.0);
            const bool full = std::string(kind) == "full_attention";
            if (theta != 0.0) (full ? global_theta : local_theta) = theta;
        }
    }
    for (double theta : {global_theta, local_theta})
        if (!(theta > 0.0 && theta < 1e30))
            fail(LLM_ERR_BAD_DIMENSIONS, path, ": rope theta ", theta, " is not a positive number");
    c.rope_theta = static_cast<float>(global_theta);

    const int64_t window = f.integer("sliding_window", 4096);
    check_dimension(path, "sliding_window", window, ModelLimits::seq_len);
    std::vector<bool> sliding(static_cast<size_t>(n_layers));
    if (const Json *types = f.get("layer_types")) {
        if (!types->is_array() || types->size() != static_cast<size_t>(n_layers))
            fail(LLM_ERR_FORMAT, path, ": \"layer_types\" is not a list of ", n_layers,
                 " layer types");
        for (size_t i = 0; i < types->size(); ++i) {
            const Json &t = (*types)[i];
            const std::string kind = t.is_string() ? t.get<std::string>() : t.dump();
            if (kind != "sliding_attention" && kind != "full_attention")
                unsupported(path, "layer_types", "entry \"" + kind + "\"");
            sliding[i] = kind == "sliding_attention";
        }
    } else {
        // transformers' rule: every pattern-th layer is global, the rest slide.
        const int64_t pattern = f.integer("sliding_window_pattern", 6);
        check_dimension(path, "sliding_window_pattern", pattern, ModelLimits::layers);
        for (int64_t i = 0; i < n_layers; ++i)
            sliding[static_cast<size_t>(i)] = (i + 1) % pattern != 0;
    }
    c.layer_attention.resize(static_cast<size_t>(n_layers));
    for (size_t i = 0; i < sliding.size(); ++i)
        if (sliding[i])
            c.layer_attention[i] = {static_cast<int32_t>(window), static_cast<float>(local_theta)};
        else
            c.layer_attention[i] = {0, static_cast<float>(global_theta)};

    const double scalar = f.number("query_pre_attn_scalar", 256.0);
    if (!(scalar > 0.0 && scalar < 1e30))
        fail(LLM_ERR_BAD_DIMENSIONS, path, ": query_pre_attn_scalar ", scalar,
             " is not a positive number");
    c.attention_scale = static_cast<float>(1.0 / std::sqrt(scalar));
    // sqrt(hidden_size) in fp32, the activations' precision here (transformers
    // rounds it to the weights' dtype, llama.cpp keeps fp32).
    c.embedding_scale = std::sqrt(static_cast<float>(dim));
    c.ffn_activation = Activation::GeluTanh;
    c.qk_norm = true;
    c.post_norms = true;
    out.norm_offset = 1.0f;
}

} // namespace

std::vector<float> llama3_rope_divisors(int64_t head_dim, double theta, double factor, double low,
                                        double high, double original) {
    const double pi = 3.14159265358979323846;
    std::vector<float> divisors(static_cast<size_t>(head_dim / 2));
    for (int64_t i = 0; i < head_dim / 2; ++i) {
        const double freq = std::pow(theta, -2.0 * static_cast<double>(i) / head_dim);
        const double wavelen = 2 * pi / freq;
        double scaled = freq;
        if (wavelen > original / low) {
            scaled = freq / factor;
        } else if (wavelen >= original / high) {
            const double smooth = (original / wavelen - low) / (high - low);
            scaled = (1 - smooth) * freq / factor + smooth * freq;
        }
        divisors[static_cast<size_t>(i)] = static_cast<float>(freq / scaled);
    }
    return divisors;
}

HfConfig parse_hf_config(const std::string &json_text, const std::string &path) {
    const Json j = parse_object(json_text, path);
    const Fields f(j, path);
    using L = ModelLimits;

    const std::string model_type = f.string("model_type", "");
    if (model_type.empty()) fail(LLM_ERR_FORMAT, path, ": no \"model_type\"");
    if (model_type == "gemma3")
        unsupported(path, "model_type",
                    "\"gemma3\" (the multimodal checkpoint; libllm reads Gemma 3's text-only "
                    "gemma3_text)");
    if (model_type != "qwen2" && model_type != "qwen3" && model_type != "llama" &&
        model_type != "gemma3_text")
        unsupported(path, "model_type",
                    "\"" + model_type + "\" (libllm reads qwen2, qwen3, llama and gemma3_text)");
    const bool qwen2 = model_type == "qwen2", qwen3 = model_type == "qwen3";
    const bool gemma3 = model_type == "gemma3_text";

    if (const Json *arch = f.get("architectures")) {
        bool causal_lm = false;
        if (arch->is_array())
            for (const Json &a : *arch)
                causal_lm |= a.is_string() && a.get<std::string>().size() >= 11 &&
                             a.get<std::string>().compare(a.get<std::string>().size() - 11, 11,
                                                          "ForCausalLM") == 0;
        if (!causal_lm) unsupported(path, "architectures", arch->dump() + " (not a *ForCausalLM)");
    }
    if (f.has("quantization_config"))
        unsupported(path, "quantization_config", "(pre-quantized weights)");

    if (!gemma3) { // (Gemma 3 names it hidden_activation: read_gemma3)
        const std::string act = f.string("hidden_act", "silu");
        if (act != "silu") unsupported(path, "hidden_act", "\"" + act + "\" (only silu)");
    }
    const bool attention_bias = qwen2 || f.boolean("attention_bias", false);
    if (!qwen2) {
        if (attention_bias && !qwen3) unsupported(path, "attention_bias", "true");
        if (f.boolean("mlp_bias", false)) unsupported(path, "mlp_bias", "true");
    }

    HfConfig out;
    ModelConfig &c = out.model;
    c.arch = gemma3 ? "gemma3" : model_type;
    const int64_t dim = f.integer("hidden_size");
    const int64_t hidden = f.integer("intermediate_size");
    const int64_t layers = f.integer("num_hidden_layers");
    const int64_t heads = f.integer("num_attention_heads");
    const int64_t kv_heads = f.integer("num_key_value_heads", heads);
    const int64_t vocab = f.integer("vocab_size");
    const int64_t max_pos = f.integer("max_position_embeddings", qwen2    ? 32768
                                                                 : gemma3 ? 131072
                                                                          : 2048);
    check_dimension(path, "hidden_size", dim, L::dim);
    check_dimension(path, "intermediate_size", hidden, L::hidden_dim);
    check_dimension(path, "num_hidden_layers", layers, L::layers);
    check_dimension(path, "num_attention_heads", heads, L::heads);
    check_dimension(path, "num_key_value_heads", kv_heads, L::heads);
    check_dimension(path, "vocab_size", vocab, L::vocab);
    check_dimension(path, "max_position_embeddings", max_pos, L::seq_len);
    if (heads % kv_heads != 0)
        fail(LLM_ERR_BAD_DIMENSIONS, path, ": num_attention_heads ", heads,
             " is not a multiple of num_key_value_heads ", kv_heads);
    int64_t head_dim;
    if (f.has("head_dim")) {
        head_dim = f.integer("head_dim");
        check_dimension(path, "head_dim", head_dim, L::head_dim);
    } else {
        if (dim % heads != 0)
            fail(LLM_ERR_BAD_DIMENSIONS, path, ": hidden_size ", dim,
                 " is not a multiple of num_attention_heads ", heads, " (and no head_dim)");
        head_dim = dim / heads;
    }
    if (head_dim % 2 != 0)
        fail(LLM_ERR_BAD_DIMENSIONS, path, ": head_dim ", head_dim, " is odd (RoPE needs pairs)");
    if (heads * head_dim > L::dim)
        fail(LLM_ERR_BAD_DIMENSIONS, path, ": num_attention_heads x head_dim = ", heads * head_dim,
             " is larger than ", L::dim);

    const double theta = f.number("rope_theta", 10000.0);
    if (!(theta > 0.0 && theta < 1e30))
        fail(LLM_ERR_BAD_DIMENSIONS, path, ": rope_theta ", theta, " is not a positive number");
    const double eps = f.number("rms_norm_eps", 1e-6);
    if (!(eps > 0.0 && eps < 1.0))
        fail(LLM_ERR_BAD_DIMENSIONS, path, ": rms_norm_eps ", eps, " is outside (0, 1)");
    if (qwen2 || qwen3) check_sliding_window(f, layers, max_pos);

    c.dim = static_cast<int32_t>(dim);
    c.hidden_dim = static_cast<int32_t>(hidden);
    c.n_layers = static_cast<int32_t>(layers);
    c.n_heads = static_cast<int32_t>(heads);
    c.n_kv_heads = static_cast<int32_t>(kv_heads);
    c.head_dim = static_cast<int32_t>(head_dim);
    c.vocab_size = static_cast<int32_t>(vocab);
    c.max_seq_len = static_cast<int32_t>(max_pos);
    c.rope_theta = static_cast<float>(theta);
    c.norm_eps = static_cast<float>(eps);
    c.rope_style = RopeStyle::HalfSplit;
    // Qwen2 always has q/k/v biases; Qwen3 as attention_bias says; Llama none.
    c.qkv_bias = attention_bias;
    c.qk_norm = qwen3;
    if (gemma3)
        read_gemma3(f, layers, dim, out);
    else if (const Json *scaling = f.get("rope_scaling"))
        c.rope_freq_divisors = rope_scaling_divisors(*scaling, path, head_dim, theta);
    // (transformers' default: tied for Gemma 3, untied for the others)
    out.tie_word_embeddings = f.boolean("tie_word_embeddings", gemma3);
    out.eos_token_ids = eos_ids(f);
    return out;
}

std::vector<int32_t> parse_generation_eos(const std::string &json_text, const std::string &path) {
    const Json j = parse_object(json_text, path);
    return eos_ids(Fields(j, path));
}

} // namespace llm
