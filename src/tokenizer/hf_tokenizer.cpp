#include "tokenizer/hf_tokenizer.h"

#include <algorithm>
#include <deque>
#include <unordered_map>

#include "common/error.h"
#include "common/mapped_file.h"
#include "tokenizer/added_tokens.h"
#include "tokenizer/bpe_model.h"
#include "tokenizer/hf_decoder.h"
#include "tokenizer/hf_json.h"
#include "tokenizer/hf_normalizer.h"
#include "tokenizer/hf_post_processor.h"
#include "tokenizer/hf_pretokenizer.h"
#include "tokenizer/tokenizer_json_reader.h"

namespace llm {

using hf_json::Json;
using hf_json::Where;

namespace {
constexpr size_t kMaxTokenizerJson = size_t{512} << 20;
constexpr size_t kMaxConfigJson = size_t{16} << 20;
// Ids may leave this many unused slots beyond the number of tokens the file
// defines (vocabularies padded for the embedding matrix); more is an error
// rather than a huge allocation.
constexpr int64_t kMaxIdGap = 1 << 16;

std::vector<AddedToken> parse_added_tokens(const Json &root, int64_t max_id, const Where &w) {
    std::vector<AddedToken> tokens;
    const Json *list = hf_json::member(root, "added_tokens");
    if (!list) return tokens;
    const Where lw = w / "added_tokens";
    hf_json::as_array(*list, lw);
    for (size_t i = 0; i < list->size(); ++i) {
        const Json &t = hf_json::as_object((*list)[i], lw[i]);
        AddedToken a;
        a.id = static_cast<int32_t>(
            hf_json::as_int(hf_json::require(t, "id", lw[i]), 0, max_id, lw[i] / "id"));
        a.content = hf_json::as_string(hf_json::require(t, "content", lw[i]), lw[i] / "content");
        if (a.content.empty()) hf_json::bad(lw[i] / "content", "empty");
        a.special = hf_json::bool_or(t, "special", false, lw[i]);
        a.lstrip = hf_json::bool_or(t, "lstrip", false, lw[i]);
        a.rstrip = hf_json::bool_or(t, "rstrip", false, lw[i]);
        a.normalized = hf_json::bool_or(t, "normalized", !a.special, lw[i]);
        if (hf_json::bool_or(t, "single_word", false, lw[i]))
            fail(LLM_ERR_UNSUPPORTED, (lw[i] / "single_word").str(),
                 ": single_word added tokens are not supported");
        tokens.push_back(std::move(a));
    }
    return tokens;
}

// bos_token / eos_token: a string, {"content": string}, or null.
std::string config_token(const Json &config, const char *key, const Where &w) {
    const Json *v = hf_json::member(config, key);
    if (!v) return {};
    if (v->is_object())
        return hf_json::as_string(hf_json::require(*v, "content", w / key), w / key / "content");
    return hf_json::as_string(*v, w / key);
}

class HfTokenizer final : public Tokenizer {
  public:
    HfTokenizer(TokenizerJson file, const Json *config, const Where &w, const Where &cw);

    int32_t vocab_size() const override { return vocab_size_; }
    std::vector<int32_t> encode(std::string_view text, bool add_special,
                                bool parse_special) const override;
    std::string piece(int32_t id) const override {
        return valid(id) ? pieces_[static_cast<size_t>(id)] : std::string();
    }
    void decode_append(DecodeState &state, int32_t id, bool render_special,
                       std::string &out) const override;
    bool is_special(int32_t id) const override {
        return valid(id) && special_[static_cast<size_t>(id)];
    }
    int32_t bos() const override { return bos_; }
    int32_t eos() const override { return eos_; }
    size_t max_piece_bytes() const override { return max_piece_bytes_; }
    int32_t find_special(std::string_view text) const override {
        auto it = added_by_content_.find(std::string(text));
        return it == added_by_content_.end() ? -1 : it->second;
    }

  private:
    bool valid(int32_t id) const { return id >= 0 && id < vocab_size_; }
    int32_t token_id(const std::string &content) const;
    void encode_segment(std::string_view text, bool parse_special, bool cached,
                        std::vector<int32_t> &out) const;
    void encode_normalized(std::string_view text, bool cached, std::vector<int32_t> &out) const;

    BpeModel model_;
    HfNormalizer normalizer_;
    HfPreTokenizer pre_tokenizer_;
    HfDecoder decoder_;
    AddedTokenMatcher raw_added_;        // matched before normalization
    AddedTokenMatcher normalized_added_; // matched in normalized text
    std::unordered_map<std::string, int32_t> added_by_content_;
    SpecialTemplate template_;
    int32_t vocab_size_ = 0;
    std::vector<std::string> pieces_; // decoded bytes of every id
    std::vector<bool> special_;
    int32_t bos_ = -1, eos_ = -1;
    size_t max_piece_bytes_ = 0;
};

const Json &require_model(const Json &root, const Where &w) {
    const Json *model = hf_json::member(root, "model");
    if (!model) hf_json::bad(w / "model", "missing: the file describes no tokenizer model");
    return hf_json::as_object(*model, w / "model");
}

int64_t max_id_for(const TokenizerJson &file, const Where &w) {
    const Json &model = require_model(file.root, w);
    const Json *vocab = hf_json::member(model, "vocab");
    const Json *added = hf_json::member(file.root, "added_tokens");
    int64_t entries = (file.lists.has_vocab ? static_cast<int64_t>(file.lists.vocab.size())
                       : vocab              ? static_cast<int64_t>(vocab->size())
                                            : 0) +
                      (added ? static_cast<int64_t>(added->size()) : 0);
    return entries + kMaxIdGap - 1;
}

const Json &bpe_model(const TokenizerJson &file, const Where &w) {
    const Json &model = require_model(file.root, w);
    const Json *type = hf_json::member(model, "type");
    std::string name = type ? hf_json::as_string(*type, w / "model" / "type") : "";
    if (name.empty() && (file.lists.has_merges || hf_json::member(model, "merges")))
        name = "BPE"; // old files omit it
    if (name != "BPE")
        fail(LLM_ERR_UNSUPPORTED, (w / "model" / "type").str(), ": tokenizer model '",
             name.empty() ? "(none)" : name, "' is not supported (BPE is)");
    return model;
}

HfTokenizer::HfTokenizer(TokenizerJson file, const Json *config, const Where &w, const Where &cw)
    : model_(bpe_model(file, w), std::move(file.lists), max_id_for(file, w), w / "model"),
      normalizer_(hf_json::member(file.root, "normalizer"), w / "normalizer"),
      pre_tokenizer_(hf_json::member(file.root, "pre_tokenizer"), w / "pre_tokenizer"),
      decoder_(hf_json::member(file.root, "decoder"), w / "decoder") {
    const Json &root = file.root;
    const int64_t max_id = max_id_for(file, w);
    if (pre_tokenizer_.byte_level()) model_.use_byte_level_alphabet();

    std::vector<AddedToken> added = parse_added_tokens(root, max_id, w);
    vocab_size_ = model_.size();
    for (const AddedToken &a : added)
        vocab_size_ = std::max(vocab_size_, a.id + 1);
    pieces_.resize(static_cast<size_t>(vocab_size_));
    special_.assign(static_cast<size_t>(vocab_size_), false);
    std::vector<bool> is_added(static_cast<size_t>(vocab_size_), false);
    std::vector<AddedToken> raw, normalized;
    for (size_t i = 0; i < added.size(); ++i) {
        AddedToken &a = added[i];
        const size_t id = static_cast<size_t>(a.id);
        if (is_added[id])
            hf_json::bad((w / "added_tokens")[i], "id " + std::to_string(id) + " is used twice");
        if (model_.has(a.id) && model_.token(a.id) != a.content)
            hf_json::bad((w / "added_tokens")[i],
                         "id " + std::to_string(id) + " is '" + model_.token(a.id) +
                             "' in the vocabulary, not '" + a.content + "'");
        is_added[id] = true;
        special_[id] = a.special;
        pieces_[id] = decoder_.piece(a.content);
        added_by_content_.emplace(a.content, a.id);
        if (a.normalized && !normalizer_.identity()) {
            std::string buf;
            a.content = std::string(normalizer_.apply(a.content, buf));
            normalized.push_back(a);
        } else {
            raw.push_back(a);
        }
    }
    raw_added_ = AddedTokenMatcher(std::move(raw));
    normalized_added_ = AddedTokenMatcher(std::move(normalized));
    for (int32_t id = 0; id < model_.size(); ++id)
        if (!is_added[static_cast<size_t>(id)] && model_.has(id))
            pieces_[static_cast<size_t>(id)] = decoder_.piece(model_.token(id));
    for (const std::string &p : pieces_)
        max_piece_bytes_ = std::max(max_piece_bytes_, p.size());
    if (decoder_.join_with_spaces()) ++max_piece_bytes_;

    template_ = parse_post_processor(hf_json::member(root, "post_processor"), vocab_size_,
                                     w / "post_processor");
    if (config) {
        bos_ = token_id(config_token(*config, "bos_token", cw));
        eos_ = token_id(config_token(*config, "eos_token", cw));
        // transformers rebuilds Llama-style templates from these two flags.
        auto apply_flag = [&](const char *key, int32_t id, std::vector<int32_t> &ids, bool front) {
            const Json *flag = hf_json::member(*config, key);
            if (!flag || id < 0) return;
            bool on = hf_json::as_bool(*flag, cw / key);
            ids.erase(std::remove(ids.begin(), ids.end(), id), ids.end());
            if (on) ids.insert(front ? ids.begin() : ids.end(), id);
        };
        apply_flag("add_bos_token", bos_, template_.prefix, true);
        apply_flag("add_eos_token", eos_, template_.suffix, false);
    } else if (!template_.prefix.empty()) {
        bos_ = template_.prefix.front();
    }
}

int32_t HfTokenizer::token_id(const std::string &content) const {
    if (content.empty()) return -1;
    auto it = added_by_content_.find(content);
    if (it != added_by_content_.end()) return it->second;
    return model_.find(content);
}

std::vector<int32_t> HfTokenizer::encode(std::string_view text, bool add_special,
                                         bool parse_special) const {
    std::vector<int32_t> out;
    out.reserve(text.size() / 3 + 8); // English runs at 4-5 bytes per token
    if (add_special) out = template_.prefix;
    std::vector<AddedTokenMatcher::Segment> segments;
    raw_added_.split(text, parse_special, segments);
    auto cache = model_.try_lock_cache();
    for (const auto &seg : segments) {
        if (seg.id >= 0)
            out.push_back(seg.id);
        else
            encode_segment(seg.text, parse_special, cache.owns_lock(), out);
    }
    if (add_special) out.insert(out.end(), template_.suffix.begin(), template_.suffix.end());
    return out;
}

// Plain text between two added tokens: normalized on its own (so a Prepend
// normalizer acts once per segment, as in HF).
void HfTokenizer::encode_segment(std::string_view text, bool parse_special, bool cached,
                                 std::vector<int32_t> &out) const {
    std::string buffer;
    std::string_view norm = normalizer_.apply(text, buffer);
    if (normalized_added_.empty()) {
        encode_normalized(norm, cached, out);
        return;
    }
    std::vector<AddedTokenMatcher::Segment> segments;
    normalized_added_.split(norm, parse_special, segments);
    for (const auto &seg : segments) {
        if (seg.id >= 0)
            out.push_back(seg.id);
        else
            encode_normalized(seg.text, cached, out);
    }
}

void HfTokenizer::encode_normalized(std::string_view text, bool cached,
                                    std::vector<int32_t> &out) const {
    if (text.empty()) return;
    struct ToModel final : HfPreTokenizer::WordSink {
        const BpeModel &model;
        bool cached;
        std::vector<int32_t> &out;
        ToModel(const BpeModel &m, bool c, std::vector<int32_t> &o) : model(m), cached(c), out(o) {}
        void word(std::string_view w) override { model.tokenize(w, out, cached); }
    } sink(model_, cached, out);
    std::deque<std::string> storage;
    pre_tokenizer_.for_each_word(text, storage, sink);
}

void HfTokenizer::decode_append(DecodeState &state, int32_t id, bool render_special,
                                std::string &out) const {
    state.prev = id;
    if (!valid(id) || (special_[static_cast<size_t>(id)] && !render_special)) return;
    const std::string &p = pieces_[static_cast<size_t>(id)];
    if (p.empty()) return;
    size_t skip = 0;
    if (!state.emitted_text) {
        const std::string &strip = decoder_.leading_strip();
        if (!strip.empty() && p.compare(0, strip.size(), strip) == 0) skip = strip.size();
    } else if (decoder_.join_with_spaces()) {
        out.push_back(' ');
    }
    state.emitted_text = true;
    out.append(p, skip, std::string::npos);
}

} // namespace

std::unique_ptr<Tokenizer> load_hf_tokenizer(const std::string &tokenizer_json_path,
                                             const std::string &tokenizer_config_path) {
    TokenizerJson file = read_tokenizer_json(read_text_file(tokenizer_json_path, kMaxTokenizerJson),
                                             tokenizer_json_path);
    const Where w{tokenizer_json_path, ""};
    if (!file.root.is_object()) hf_json::bad(w, "expected a JSON object");
    Json config;
    if (!tokenizer_config_path.empty()) {
        config = hf_json::parse(read_text_file(tokenizer_config_path, kMaxConfigJson),
                                tokenizer_config_path);
        if (!config.is_object())
            hf_json::bad({tokenizer_config_path, ""}, "expected a JSON object");
    }
    return std::make_unique<HfTokenizer>(std::move(file),
                                         tokenizer_config_path.empty() ? nullptr : &config, w,
                                         Where{tokenizer_config_path, ""});
}

} // namespace llm
