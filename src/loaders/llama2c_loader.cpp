#include "loaders/llama2c_loader.h"

#include <cstring>

#include "common/checked_math.h"
#include "common/error.h"
#include "loaders/loader.h"
#include "tokenizer/llama2c_tokenizer.h"

namespace llm {

namespace {

constexpr size_t kHeaderBytes = 7 * 4;

struct Header {
    int32_t dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len;
};

// Hands out consecutive fp32 tensors from the mapped file.
struct Cursor {
    const uint8_t *base;
    size_t offset;
    Matrix matrix(int64_t rows, int64_t cols) {
        Matrix m{base + offset, DType::F32, rows, cols};
        offset += static_cast<size_t>(rows * cols) * 4;
        return m;
    }
    const float *floats(int64_t n) {
        const float *p = reinterpret_cast<const float *>(base + offset);
        offset += static_cast<size_t>(n) * 4;
        return p;
    }
};

} // namespace

bool looks_like_llama2c(const uint8_t *data, size_t size) {
    if (size < kHeaderBytes) return false;
    Header h;
    std::memcpy(&h, data, sizeof h);
    return h.dim > 0 && h.hidden_dim > 0 && h.n_layers > 0 && h.n_heads > 0 && h.n_kv_heads > 0 &&
           h.vocab_size != 0 && h.seq_len > 0;
}

std::unique_ptr<Model> load_llama2c(const std::string &path, const LoadOptions &options) {
    auto file = MappedFile::open(path, options.use_mmap);
    const size_t size = file->size();
    if (size < kHeaderBytes)
        fail(LLM_ERR_TRUNCATED, path, ": ", size, " bytes is shorter than the ", kHeaderBytes,
             "-byte llama2.c header");
    Header h;
    std::memcpy(&h, file->data(), sizeof h);
    uint32_t magic;
    std::memcpy(&magic, file->data(), 4);
    if (magic == 0x616b3432u) // "ak42": llama2.c's newer export versions
        fail(LLM_ERR_UNSUPPORTED, path,
             ": llama2.c export version 1/2 (magic ak42) is not supported; export with "
             "--version 0 (legacy)");

    const bool shared_classifier = h.vocab_size > 0;
    const int64_t vocab = h.vocab_size > 0 ? h.vocab_size : -static_cast<int64_t>(h.vocab_size);
    using Lim = ModelLimits;
    check_dimension(path, "dim", h.dim, Lim::dim);
    check_dimension(path, "hidden_dim", h.hidden_dim, Lim::hidden_dim);
    check_dimension(path, "n_layers", h.n_layers, Lim::layers);
    check_dimension(path, "n_heads", h.n_heads, Lim::heads);
    check_dimension(path, "n_kv_heads", h.n_kv_heads, Lim::heads);
    check_dimension(path, "vocab_size", vocab, Lim::vocab);
    check_dimension(path, "seq_len", h.seq_len, Lim::seq_len);
    if (h.dim % h.n_heads != 0)
        fail(LLM_ERR_BAD_DIMENSIONS, path, ": dim ", h.dim, " is not a multiple of n_heads ",
             h.n_heads);
    if (h.n_heads % h.n_kv_heads != 0)
        fail(LLM_ERR_BAD_DIMENSIONS, path, ": n_heads ", h.n_heads,
             " is not a multiple of n_kv_heads ", h.n_kv_heads);
    const int64_t head_size = h.dim / h.n_heads;
    if (head_size % 2 != 0)
        fail(LLM_ERR_BAD_DIMENSIONS, path, ": head size ", head_size, " is odd (RoPE needs pairs)");

    // Expected size, overflow-checked, before anything is trusted.
    const uint64_t L = static_cast<uint64_t>(h.n_layers), D = static_cast<uint64_t>(h.dim);
    const uint64_t H = static_cast<uint64_t>(h.hidden_dim);
    const uint64_t KV = static_cast<uint64_t>(h.n_kv_heads) * static_cast<uint64_t>(head_size);
    const char *what = "llama2.c checkpoint size";
    uint64_t floats = checked_mul(static_cast<uint64_t>(vocab), D, what); // token embedding
    uint64_t per_layer = 0;
    per_layer = checked_add(per_layer, 2 * D, what);                        // rms_att, rms_ffn
    per_layer = checked_add(per_layer, checked_mul(2 * D, D, what), what);  // wq, wo
    per_layer = checked_add(per_layer, checked_mul(2 * KV, D, what), what); // wk, wv
    per_layer = checked_add(per_layer, checked_mul(3 * H, D, what), what);  // w1, w2, w3
    floats = checked_add(floats, checked_mul(per_layer, L, what), what);
    floats = checked_add(floats, D, what); // rms_final
    floats = checked_add(
        floats,
        checked_mul(static_cast<uint64_t>(h.seq_len), static_cast<uint64_t>(head_size), what),
        what); // freq_cis_real + imag (unused)
    if (!shared_classifier)
        floats = checked_add(floats, checked_mul(static_cast<uint64_t>(vocab), D, what), what);
    const uint64_t expected = checked_add(checked_mul(floats, 4, what), kHeaderBytes, what);
    if (size < expected)
        fail(LLM_ERR_TRUNCATED, path, ": file is ", size, " bytes but its header (dim ", h.dim,
             ", ", h.n_layers, " layers, vocab ", vocab, ") needs ", expected);
    if (size > expected)
        fail(LLM_ERR_SIZE_MISMATCH, path, ": file is ", size, " bytes but its header (dim ", h.dim,
             ", ", h.n_layers, " layers, vocab ", vocab, ") accounts for ", expected);

    auto model = std::make_unique<Model>();
    model->format = "llama2c";
    ModelConfig &c = model->config;
    c.arch = "llama";
    c.dim = h.dim;
    c.hidden_dim = h.hidden_dim;
    c.n_layers = h.n_layers;
    c.n_heads = h.n_heads;
    c.n_kv_heads = h.n_kv_heads;
    c.head_dim = static_cast<int32_t>(head_size);
    c.vocab_size = static_cast<int32_t>(vocab);
    c.max_seq_len = h.seq_len;
    c.rope_theta = 10000.0f;
    c.norm_eps = 1e-5f;
    c.rope_style = RopeStyle::Interleaved;
    c.qkv_bias = false;

    // Tensors, in the order llama2.c's export writes them. Each is stored for
    // all layers at once.
    ModelWeights &w = model->weights;
    const int64_t n_layers = h.n_layers, dim = h.dim, hidden = h.hidden_dim;
    const int64_t kv = static_cast<int64_t>(KV);
    Cursor cur{file->data(), kHeaderBytes};
    w.token_embedding = cur.matrix(vocab, dim);
    w.layers.resize(static_cast<size_t>(n_layers));
    for (auto &l : w.layers)
        l.attn_norm = {cur.floats(dim), dim};
    for (auto &l : w.layers)
        l.wq = cur.matrix(dim, dim);
    for (auto &l : w.layers)
        l.wk = cur.matrix(kv, dim);
    for (auto &l : w.layers)
        l.wv = cur.matrix(kv, dim);
    for (auto &l : w.layers)
        l.wo = cur.matrix(dim, dim);
    for (auto &l : w.layers)
        l.ffn_norm = {cur.floats(dim), dim};
    for (auto &l : w.layers)
        l.w_gate = cur.matrix(hidden, dim);
    for (auto &l : w.layers)
        l.w_down = cur.matrix(dim, hidden);
    for (auto &l : w.layers)
        l.w_up = cur.matrix(hidden, dim);
    w.final_norm = {cur.floats(dim), dim};
    cur.floats(static_cast<int64_t>(h.seq_len) * head_size); // freq_cis tables: RoPE is recomputed
    w.classifier = shared_classifier ? w.token_embedding : cur.matrix(vocab, dim);
    model->files.push_back(file);

    std::string tok_path = options.tokenizer_path.empty()
                               ? path_join(path_dirname(path), "tokenizer.bin")
                               : options.tokenizer_path;
    auto tok_file = MappedFile::open(tok_path, options.use_mmap);
    model->tokenizer = Llama2cTokenizer::load(*tok_file, c.vocab_size);
    // These models were trained on BOS-separated stories: they end a story by
    // predicting BOS, which llama2.c treats as the stop signal.
    model->eog_tokens = {1, 2};
    validate_model(*model);
    return model;
}

} // namespace llm
