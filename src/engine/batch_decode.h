// One decode step of many sequences that share a model: each contributes one
// token, and the tokens go through every layer together, so each matrix
// product is one matrix x matrix over the weights (each weight row read once
// per step for all of them) instead of one matrix x vector per sequence.
// Each sequence keeps its own KV cache and position; attention is per row,
// against that row's own cache.
#pragma once

#include <atomic>
#include <cstdint>

namespace llm {

class Transformer;

struct BatchSeq {
    Transformer *transformer;
    int32_t token;
    int32_t pos;                     // where the token goes: the sequence's current length
    float *logits;                   // vocab_size floats, written when the row completes
    const std::atomic<bool> *cancel; // may be null; checked between layers
    bool done = false;               // out: false if cancel was raised (nothing was kept)
};

// LLM_BATCH_EXACT=1 in the environment (read at each call): steps keep
// each row's arithmetic that of a lone decode.
bool batch_exact_from_env();

class BatchDecoder {
  public:
    // Runs seqs[i].token at seqs[i].pos for every i < n. All transformers
    // must share one model and be distinct; every token and position is
    // checked before any work (the error names the index). The first
    // sequence's thread pool and scratch serve the whole step; more rows
    // than its max_batch() go in several chunks. A row whose cancel is
    // raised (seen between layers) finishes with done = false and its
    // logits untouched; its cache may hold keys and values at its position,
    // which the next token there overwrites.
    //
    // exact: every row's products are computed as a lone decode computes
    // them (matvec_tokens), so its logits are that decode's, bit for bit.
    // Otherwise, a product with enough rows for the batch kernels to cost
    // less (batch_step_min_tokens in kernels.h) goes through them, as a
    // prompt's tokens do: the same within float rounding, not bit for bit.
    static void decode(BatchSeq *seqs, int64_t n, bool exact);
};

} // namespace llm
