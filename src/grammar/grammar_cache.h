// Compiled grammars shared between samplers. A server makes a sampler per
// request; every request with the same grammar (GBNF text and start rule, or
// JSON Schema text) on the same vocabulary gets the same compiled grammar,
// token trie and masks (Grammar::shared_masks) instead of starting over, so
// its first sentence costs what later ones do.
//
// One per model (llm_model holds it; the vocabulary is recognised by its
// token texts), thread-safe, bounded, least recently used dropped first:
//   - at most kMaxVocabularies tries (a trie dropped takes its grammars);
//   - at most kMaxGrammars grammars, whose keys, compiled rules and masks
//     take at most kMaxBytes when a grammar is asked for (a store in use
//     grows up to its own bound, MaskStore, in between).
// What is dropped lives on in the samplers that still use it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "grammar/gbnf_parser.h"
#include "grammar/token_trie.h"

namespace llm::grammar {

class GrammarCache {
  public:
    static constexpr size_t kMaxVocabularies = 2;
    static constexpr size_t kMaxGrammars = 32;
    static constexpr size_t kMaxBytes = size_t(64) << 20;

    // The trie of these token texts (TokenTrie::token_bytes) and
    // end-of-generation ids: the one kept for them, else `hint` if it has
    // them, else a new one.
    std::shared_ptr<const TokenTrie> trie(const std::vector<std::string> &bytes,
                                          const std::vector<int32_t> &eog,
                                          const std::shared_ptr<const TokenTrie> &hint = nullptr);
    // GBNF text and its start rule ("" = "root"), for a trie from trie():
    // parse_gbnf's result (and errors), with masks shared over that trie.
    std::shared_ptr<const Grammar> gbnf(const std::shared_ptr<const TokenTrie> &trie,
                                        std::string_view text, std::string_view root);
    // The same for a JSON Schema (json_schema_to_gbnf's errors).
    std::shared_ptr<const Grammar> json_schema(const std::shared_ptr<const TokenTrie> &trie,
                                               std::string_view schema);

    size_t vocabularies() const;
    size_t grammars() const;
    // Bytes of the grammars kept (keys, rules, masks), as the bound counts
    // them.
    size_t bytes() const;
    void clear();

  private:
    struct Vocabulary {
        uint64_t hash;
        std::shared_ptr<const TokenTrie> trie;
        uint64_t used;
    };
    struct Compiled {
        std::shared_ptr<const TokenTrie> trie;
        std::string key;
        std::shared_ptr<const Grammar> grammar;
        size_t fixed_bytes; // key and rules; the masks are counted live
        uint64_t used;
    };
    std::shared_ptr<const Grammar>
    find_or_compile(const std::shared_ptr<const TokenTrie> &trie, std::string key,
                    const std::function<std::shared_ptr<const Grammar>()> &compile);
    size_t bytes_locked() const;
    void trim_locked(const Grammar *keep);

    mutable std::mutex mutex_;
    std::vector<Vocabulary> vocabularies_;
    std::vector<Compiled> grammars_;
    uint64_t clock_ = 0;
};

} // namespace llm::grammar
