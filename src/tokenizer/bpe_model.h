// The BPE model of tokenizer.json ("model": {"type": "BPE", ...}): the
// vocabulary, the merge ranks, and the word -> ids algorithm of Hugging Face
// tokenizers (characters looked up one by one with byte fallback / unk, then
// repeatedly merge the adjacent pair with the lowest rank, leftmost first).
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenizer/bpe_lists.h"
#include "tokenizer/hf_json.h"

namespace llm {

class BpeModel {
  public:
    // Parses and validates the "model" object; `max_id` bounds every id.
    // The vocabulary and merges are taken from `lists` where it has them
    // (read by read_tokenizer_json), else from the object (then put into
    // `lists`, which the constructor uses up).
    BpeModel(const hf_json::Json &model, BpeLists &&lists, int64_t max_id,
             const hf_json::Where &where);
    // A vocabulary given as plain lists (GGUF's tokenizer.ggml.tokens and
    // .merges): token i has id i; merge i is "left right", split at the
    // first space after its first byte as llama.cpp does, and has rank i
    // (a repeated merge keeps its first rank, as there).
    // No unk, no byte fallback. LLM_ERR_FORMAT, naming `where`, for a
    // repeated token or the first merge whose parts or result are not
    // tokens.
    BpeModel(std::vector<std::string> tokens, const std::vector<std::string> &merges,
             bool ignore_merges, const std::string &where);

    // One past the largest vocabulary id.
    int32_t size() const { return static_cast<int32_t>(tokens_.size()); }
    // The vocabulary string of id ("" for an id the vocabulary skips).
    const std::string &token(int32_t id) const { return tokens_[static_cast<size_t>(id)]; }
    bool has(int32_t id) const {
        return id >= 0 && id < size() && present_[static_cast<size_t>(id)];
    }
    int32_t find(std::string_view token) const;
    // find(left + right) without making the string.
    int32_t find_joined(std::string_view left, std::string_view right) const;

    // Words will be raw bytes written in GPT-2's byte-level alphabet (the
    // ByteLevel pre-tokenizer): byte b starts as the token of its character.
    void use_byte_level_alphabet();
    // After use_byte_level_alphabet: the first byte whose character is not
    // a token, or -1 when every byte has one.
    int missing_byte() const {
        for (int b = 0; b < 256; ++b)
            if (byte_ids_[b] < 0) return b;
        return -1;
    }

    // The word cache is shared by all threads: an encode call locks it for
    // its whole duration if it is free, and goes without it otherwise.
    std::unique_lock<std::mutex> try_lock_cache() const {
        return std::unique_lock<std::mutex>(cache_mutex_, std::try_to_lock);
    }

    // Appends the ids of one pre-tokenized word. cache_locked: the caller
    // holds try_lock_cache()'s lock.
    void tokenize(std::string_view word, std::vector<int32_t> &out, bool cache_locked) const;

  private:
    struct PairEntry {
        uint64_t key; // left << 32 | right, kEmptyKey when unused
        uint32_t rank;
        int32_t merged;
    };
    static constexpr uint64_t kEmptyKey = ~uint64_t{0};

    // Fills index_ and fallback_ids_ from tokens_; returns the id of the
    // first token that repeats an earlier one, or -1.
    int32_t build_index();
    void reserve_merges(size_t count);
    void add_merge(int32_t left, int32_t right, uint32_t rank, int32_t merged);
    const PairEntry *find_pair(int32_t left, int32_t right) const;
    void initial_symbols(std::string_view word, std::vector<int32_t> &symbols) const;
    void add_unknown(std::string_view piece, std::vector<int32_t> &symbols, int32_t &pending_unk,
                     bool &unk_pending) const;
    void merge(std::string_view word, std::vector<int32_t> &out) const;

    std::vector<std::string> tokens_;
    std::vector<bool> present_;
    // token string -> id: open addressing over (hash, id), strings compared
    // in tokens_ (a flat table: loading 150k merges does 450k lookups).
    struct IndexSlot {
        uint32_t hash;
        int32_t id; // -1: empty
    };
    std::vector<IndexSlot> index_;
    std::vector<PairEntry> pairs_; // open addressing, power of 2
    int32_t unk_id_ = -1;
    bool fuse_unk_ = false;
    bool byte_fallback_ = false;
    bool ignore_merges_ = false;
    bool byte_level_ = false;
    int32_t byte_ids_[256];     // byte-level: token of each byte's character, or -1
    int32_t fallback_ids_[256]; // token "<0xXX>" of each byte, or -1

    // word -> (offset, count) in cache_ids_; keys view cache_words_. Filled
    // until full, never evicted (as HF's cache).
    mutable std::mutex cache_mutex_;
    mutable std::unordered_map<std::string_view, std::pair<uint32_t, uint32_t>> cache_;
    mutable std::deque<std::string> cache_words_;
    mutable std::vector<int32_t> cache_ids_;
};

} // namespace llm
