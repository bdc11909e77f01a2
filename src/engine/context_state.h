// A context's saved state: what a later context on the same model needs to
// continue exactly where this one stopped (the tokens, the KV cache of their
// positions, the last logits, the text stream's held-back bytes).
//
// Layout, little-endian, no padding:
//   "LLMSTATE"  u32 format version (1)
//   fingerprint: char arch[16] (NUL-padded), u32 n_layers, n_kv_heads,
//                head_dim, vocab_size, dim, weight type, embedding type,
//                u64 hash of some weight bytes
//   u32 kv type (0 fp32, 1 fp16), u32 n_tokens, u32 flags (1: has logits),
//   u32 n_logits (vocab_size or 0), u32 pending (0..3), u64 kv bytes
//   i32 tokens[n_tokens], f32 logits[n_logits], u8 pending bytes[pending],
//   the KV payload (KVCache::serialize of n_tokens positions),
//   u64 checksum of every byte before it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/kv_cache.h"
#include "model/model.h"

namespace llm {

// What identifies a model for a saved state: its shape, weight types and a
// hash of a few KB at both ends of the embedding, output, first key and last
// value matrices plus the RoPE settings (cheap, and different for any two
// real checkpoints).
struct ModelFingerprint {
    std::string arch;
    int32_t n_layers = 0, n_kv_heads = 0, head_dim = 0, vocab_size = 0, dim = 0;
    int32_t weight_type = 0, embedding_type = 0;
    uint64_t weights_hash = 0;
};

ModelFingerprint model_fingerprint(const Model &model);
// "" when equal, else what differs ("n_layers 5 here, 24 in the state; ...").
std::string fingerprint_difference(const ModelFingerprint &here, const ModelFingerprint &saved);

// The context's side of a state, beside its KV cache.
struct ContextStateData {
    std::vector<int32_t> tokens;
    bool has_logits = false;
    std::vector<float> logits;  // vocab_size floats when has_logits
    std::string stream_pending; // the text stream's held-back UTF-8 bytes (<= 3)
};

// Bytes write_context_state produces.
size_t context_state_size(const KVCache &cache, const ContextStateData &data);
// Writes the state (exactly context_state_size bytes) to out.
void write_context_state(const ModelFingerprint &fp, const KVCache &cache,
                         const ContextStateData &data, uint8_t *out);

// A state checked against the model and cache it is to be loaded into.
struct ParsedContextState {
    ContextStateData data;
    DType kv_type = DType::F32;
    const uint8_t *kv = nullptr; // inside the buffer given to parse
};

// Checks every field, size and the checksum; touches nothing. Errors:
// TRUNCATED (shorter than its header says), FORMAT (not a state, another
// version, damaged), STATE_MISMATCH (another model; the message says what
// differs), CONTEXT_FULL (more tokens than `cache` holds).
ParsedContextState parse_context_state(const ModelFingerprint &fp, const KVCache &cache,
                                       const uint8_t *buf, size_t len);

// 64-bit hash of n bytes (not cryptographic: catches damage, not forgery).
uint64_t state_hash(const uint8_t *p, size_t n, uint64_t seed);
// The checksum a state ends with, of the n bytes before it.
uint64_t state_checksum(const uint8_t *p, size_t n);

} // namespace llm
