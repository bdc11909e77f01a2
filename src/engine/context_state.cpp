#include "engine/context_state.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "common/checked_math.h"
#include "common/error.h"

namespace llm {

namespace {

constexpr char kMagic[8] = {'L', 'L', 'M', 'S', 'T', 'A', 'T', 'E'};
constexpr uint32_t kVersion = 1;
constexpr size_t kArchBytes = 16;
// magic, version, fingerprint (arch, 7 u32, u64), 5 u32, u64 kv bytes
constexpr size_t kHeaderBytes = 8 + 4 + kArchBytes + 7 * 4 + 8 + 5 * 4 + 8;
constexpr uint32_t kHasLogits = 1;
constexpr uint64_t kChecksumSeed = 0x4c4c4d5354415445ull; // "LLMSTATE"
constexpr size_t kMaxPending = 3;

uint64_t mix(uint64_t x) {
    x *= 0x9e3779b97f4a7c15ull;
    return x ^ (x >> 29);
}

uint64_t load_u64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i)
        v = (v << 8) | p[i];
    return v;
}

class Writer {
  public:
    explicit Writer(uint8_t *p) : p_(p) {}
    void bytes(const void *src, size_t n) {
        if (n) std::memcpy(p_, src, n);
        p_ += n;
    }
    void u32(uint32_t v) {
        for (int i = 0; i < 4; ++i)
            *p_++ = static_cast<uint8_t>(v >> (8 * i));
    }
    void u64(uint64_t v) {
        for (int i = 0; i < 8; ++i)
            *p_++ = static_cast<uint8_t>(v >> (8 * i));
    }
    void f32(float f) {
        uint32_t v;
        std::memcpy(&v, &f, 4);
        u32(v);
    }
    uint8_t *pos() const { return p_; }

  private:
    uint8_t *p_;
};

// Reads inside [p, end); the caller has checked the total size first.
class Reader {
  public:
    explicit Reader(const uint8_t *p) : p_(p) {}
    uint32_t u32() {
        uint32_t v = 0;
        for (int i = 3; i >= 0; --i)
            v = (v << 8) | p_[i];
        p_ += 4;
        return v;
    }
    uint64_t u64() {
        const uint64_t v = load_u64(p_);
        p_ += 8;
        return v;
    }
    float f32() {
        const uint32_t v = u32();
        float f;
        std::memcpy(&f, &v, 4);
        return f;
    }
    const uint8_t *take(size_t n) {
        const uint8_t *p = p_;
        p_ += n;
        return p;
    }

  private:
    const uint8_t *p_;
};

// Hash of up to 4 KiB at each end of a matrix's bytes.
uint64_t hash_ends(const Matrix &m, uint64_t seed) {
    if (m.empty()) return mix(seed ^ 1);
    const auto *p = static_cast<const uint8_t *>(m.data);
    const size_t n = m.bytes(), edge = 4096;
    if (n <= 2 * edge) return state_hash(p, n, seed);
    return state_hash(p + n - edge, edge, state_hash(p, edge, seed));
}

uint32_t kv_code(DType t) {
    return t == DType::F16 ? 1 : 0;
}

void write_fingerprint(Writer &w, const ModelFingerprint &fp) {
    char arch[kArchBytes] = {};
    std::memcpy(arch, fp.arch.data(), std::min(fp.arch.size(), kArchBytes));
    w.bytes(arch, kArchBytes);
    for (int32_t v : {fp.n_layers, fp.n_kv_heads, fp.head_dim, fp.vocab_size, fp.dim,
                      fp.weight_type, fp.embedding_type})
        w.u32(static_cast<uint32_t>(v));
    w.u64(fp.weights_hash);
}

ModelFingerprint read_fingerprint(Reader &r) {
    ModelFingerprint fp;
    const auto *arch = reinterpret_cast<const char *>(r.take(kArchBytes));
    fp.arch.assign(arch, strnlen(arch, kArchBytes));
    for (int32_t *v : {&fp.n_layers, &fp.n_kv_heads, &fp.head_dim, &fp.vocab_size, &fp.dim,
                       &fp.weight_type, &fp.embedding_type})
        *v = static_cast<int32_t>(r.u32());
    fp.weights_hash = r.u64();
    return fp;
}

} // namespace

uint64_t state_hash(const uint8_t *p, size_t n, uint64_t seed) {
    // Four independent lanes over 32-byte blocks; every step is a bijection
    // of its lane, so a change confined to one block always changes the hash.
    uint64_t lane[4] = {seed, seed ^ 0x6a09e667f3bcc908ull, seed ^ 0xbb67ae8584caa73bull,
                        seed ^ 0x3c6ef372fe94f82bull};
    size_t i = 0;
    for (; i + 32 <= n; i += 32)
        for (int j = 0; j < 4; ++j)
            lane[j] = mix(lane[j] ^ load_u64(p + i + 8 * j));
    uint64_t tail = 0;
    for (size_t k = 0; i + k < n; ++k) {
        tail ^= static_cast<uint64_t>(p[i + k]) << (8 * (k % 8));
        if (k % 8 == 7 || i + k + 1 == n) {
            lane[(k / 8) % 4] = mix(lane[(k / 8) % 4] ^ tail);
            tail = 0;
        }
    }
    uint64_t h = mix(seed ^ static_cast<uint64_t>(n));
    for (uint64_t l : lane)
        h = mix(h ^ l) + 0x632be59bd9b4e019ull;
    return h;
}

uint64_t state_checksum(const uint8_t *p, size_t n) {
    return state_hash(p, n, kChecksumSeed);
}

ModelFingerprint model_fingerprint(const Model &model) {
    const ModelConfig &c = model.config;
    ModelFingerprint fp;
    fp.arch = c.arch.substr(0, kArchBytes);
    fp.n_layers = c.n_layers;
    fp.n_kv_heads = c.n_kv_heads;
    fp.head_dim = c.head_dim;
    fp.vocab_size = c.vocab_size;
    fp.dim = c.dim;
    fp.weight_type =
        model.weights.layers.empty() ? -1 : static_cast<int32_t>(model.weights.layers[0].wq.type);
    fp.embedding_type = static_cast<int32_t>(model.weights.token_embedding.type);
    // The KV rows depend on more than the ends of the model: a layer's key
    // and value weights (a checkpoint converted to another RoPE layout has
    // its key rows permuted) and how RoPE turns them.
    uint64_t h = hash_ends(model.weights.classifier,
                           hash_ends(model.weights.token_embedding, kChecksumSeed));
    if (!model.weights.layers.empty()) {
        h = hash_ends(model.weights.layers.front().wk, h);
        h = hash_ends(model.weights.layers.back().wv, h);
    }
    uint32_t theta_bits;
    std::memcpy(&theta_bits, &c.rope_theta, 4);
    h = mix(h ^ (static_cast<uint64_t>(c.rope_style) << 32 | theta_bits));
    fp.weights_hash = h;
    return fp;
}

std::string fingerprint_difference(const ModelFingerprint &here, const ModelFingerprint &saved) {
    std::ostringstream os;
    auto field = [&](const char *name, auto a, auto b) {
        if (a == b) return;
        if (os.tellp() > 0) os << "; ";
        os << name << " " << a << " here, " << b << " in the state";
    };
    field("architecture", here.arch, saved.arch);
    field("n_layers", here.n_layers, saved.n_layers);
    field("n_kv_heads", here.n_kv_heads, saved.n_kv_heads);
    field("head_dim", here.head_dim, saved.head_dim);
    field("vocab_size", here.vocab_size, saved.vocab_size);
    field("dim", here.dim, saved.dim);
    field("weight type", here.weight_type, saved.weight_type);
    field("embedding type", here.embedding_type, saved.embedding_type);
    if (os.tellp() == 0 && here.weights_hash != saved.weights_hash)
        os << "same shape, but other weights or RoPE settings (their hash differs)";
    return os.str();
}

size_t context_state_size(const KVCache &cache, const ContextStateData &data) {
    const uint64_t n_tokens = data.tokens.size();
    const uint64_t n_logits = data.has_logits ? data.logits.size() : 0;
    uint64_t size = kHeaderBytes + 4 * n_tokens + 4 * n_logits + data.stream_pending.size() + 8;
    size = checked_add(size, cache.serialized_bytes(static_cast<int32_t>(n_tokens)), "state");
    if (size > SIZE_MAX) fail(LLM_ERR_OUT_OF_MEMORY, "a state of ", size, " bytes");
    return static_cast<size_t>(size);
}

void write_context_state(const ModelFingerprint &fp, const KVCache &cache,
                         const ContextStateData &data, uint8_t *out) {
    if (data.stream_pending.size() > kMaxPending)
        fail(LLM_ERR_INTERNAL, "state: ", data.stream_pending.size(), " held-back bytes");
    const auto n = static_cast<int32_t>(data.tokens.size());
    Writer w(out);
    w.bytes(kMagic, sizeof kMagic);
    w.u32(kVersion);
    write_fingerprint(w, fp);
    w.u32(kv_code(cache.type()));
    w.u32(static_cast<uint32_t>(n));
    w.u32(data.has_logits ? kHasLogits : 0);
    w.u32(data.has_logits ? static_cast<uint32_t>(data.logits.size()) : 0);
    w.u32(static_cast<uint32_t>(data.stream_pending.size()));
    const size_t kv_bytes = cache.serialized_bytes(n);
    w.u64(kv_bytes);
    for (int32_t t : data.tokens)
        w.u32(static_cast<uint32_t>(t));
    if (data.has_logits)
        for (float f : data.logits)
            w.f32(f);
    w.bytes(data.stream_pending.data(), data.stream_pending.size());
    cache.serialize(n, w.pos());
    uint8_t *end = w.pos() + kv_bytes;
    Writer(end).u64(state_checksum(out, static_cast<size_t>(end - out)));
}

ParsedContextState parse_context_state(const ModelFingerprint &fp, const KVCache &cache,
                                       const uint8_t *buf, size_t len) {
    if (len < sizeof kMagic) {
        if (len && std::memcmp(buf, kMagic, len) != 0)
            fail(LLM_ERR_FORMAT, "not a saved state (no \"LLMSTATE\" magic)");
        fail(LLM_ERR_TRUNCATED, "saved state truncated: ", len, " bytes");
    }
    if (std::memcmp(buf, kMagic, sizeof kMagic) != 0)
        fail(LLM_ERR_FORMAT, "not a saved state (no \"LLMSTATE\" magic)");
    if (len < kHeaderBytes)
        fail(LLM_ERR_TRUNCATED, "saved state truncated: ", len, " bytes, its header alone takes ",
             kHeaderBytes);
    Reader r(buf + sizeof kMagic);
    const uint32_t version = r.u32();
    if (version != kVersion)
        fail(LLM_ERR_FORMAT, "saved state of format version ", version, ", this library reads ",
             kVersion);
    const ModelFingerprint saved = read_fingerprint(r);
    const uint32_t kv = r.u32(), n_tokens = r.u32(), flags = r.u32(), n_logits = r.u32(),
                   pending = r.u32();
    const uint64_t kv_bytes = r.u64();

    // Sizes first (bounded, so the sums cannot overflow), then the checksum,
    // then what the fields mean.
    if (n_tokens > static_cast<uint32_t>(ModelLimits::seq_len) ||
        n_logits > static_cast<uint32_t>(ModelLimits::vocab) || pending > kMaxPending ||
        kv_bytes > (uint64_t{1} << 48))
        fail(LLM_ERR_FORMAT, "saved state header is damaged (counts out of range)");
    const uint64_t body = 4ull * n_tokens + 4ull * n_logits + pending;
    const uint64_t total = kHeaderBytes + body + kv_bytes + 8;
    if (len < total)
        fail(LLM_ERR_TRUNCATED, "saved state truncated: ", len, " of ", total, " bytes");
    if (len > total) fail(LLM_ERR_FORMAT, "saved state has ", len - total, " bytes past its end");
    const size_t checked = static_cast<size_t>(total - 8);
    if (state_checksum(buf, checked) != Reader(buf + checked).u64())
        fail(LLM_ERR_FORMAT, "saved state is damaged (checksum mismatch)");

    const std::string diff = fingerprint_difference(fp, saved);
    if (!diff.empty()) fail(LLM_ERR_STATE_MISMATCH, "saved state is from another model: ", diff);
    if (kv > 1) fail(LLM_ERR_FORMAT, "saved state has an unknown KV type ", kv);
    if (flags & ~kHasLogits) fail(LLM_ERR_FORMAT, "saved state has unknown flags ", flags);
    const bool has_logits = (flags & kHasLogits) != 0;
    if (n_logits != (has_logits ? static_cast<uint32_t>(fp.vocab_size) : 0u))
        fail(LLM_ERR_FORMAT, "saved state holds ", n_logits, " logits, the model has ",
             fp.vocab_size);
    ParsedContextState out;
    out.kv_type = kv == 1 ? DType::F16 : DType::F32;
    if (kv_bytes != cache.serialized_bytes(static_cast<int32_t>(n_tokens), out.kv_type))
        fail(LLM_ERR_FORMAT, "saved state's KV payload of ", kv_bytes, " bytes does not fit ",
             n_tokens, " positions");
    if (n_tokens > static_cast<uint32_t>(cache.n_ctx()))
        fail(LLM_ERR_CONTEXT_FULL, "saved state holds ", n_tokens,
             " tokens, the context only has room for ", cache.n_ctx());

    out.data.tokens.resize(n_tokens);
    for (auto &t : out.data.tokens) {
        t = static_cast<int32_t>(r.u32());
        if (t < 0 || t >= fp.vocab_size)
            fail(LLM_ERR_FORMAT, "saved state holds token id ", t, ", outside [0, ", fp.vocab_size,
                 ")");
    }
    out.data.has_logits = has_logits;
    out.data.logits.resize(n_logits);
    for (auto &f : out.data.logits)
        f = r.f32();
    const uint8_t *p = r.take(pending);
    out.data.stream_pending.assign(reinterpret_cast<const char *>(p), pending);
    out.kv = r.take(static_cast<size_t>(kv_bytes));
    return out;
}

} // namespace llm
