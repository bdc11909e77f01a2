#include "tokenizer/tokenizer_json_reader.h"

#include <vector>

#include "common/json.h"

namespace llm {

namespace {

// The tree of Json::parse, except for root.model.vocab (an object of
// integers) and root.model.merges (an array of "left right" strings or
// string pairs), which go to BpeLists. Anything else in those two places
// stops the parse (an event returns false): the caller then parses the text
// the ordinary way.
class TokenizerJsonSax : public JsonTreeBuilder {
  public:
    explicit TokenizerJsonSax(BpeLists &lists) : lists_(lists) {}

    Json *model = nullptr; // root.model, once seen as an object

    bool null() { return in_tree() && JsonTreeBuilder::null(); }
    bool boolean(bool v) { return in_tree() && JsonTreeBuilder::boolean(v); }
    bool number_float(Json::number_float_t v, const std::string &s) {
        return in_tree() && JsonTreeBuilder::number_float(v, s);
    }
    bool number_integer(Json::number_integer_t v) {
        if (mode_ == Mode::Vocab) return v >= 0 && vocab_id(v);
        return in_tree() && JsonTreeBuilder::number_integer(v);
    }
    bool number_unsigned(Json::number_unsigned_t v) {
        if (mode_ == Mode::Vocab)
            return v <= static_cast<Json::number_unsigned_t>(INT64_MAX) &&
                   vocab_id(static_cast<int64_t>(v));
        return in_tree() && JsonTreeBuilder::number_unsigned(v);
    }
    bool string(std::string &s) {
        if (mode_ == Mode::Merges) {
            const size_t space = s.find(' ');
            if (space == std::string::npos || s.find(' ', space + 1) != std::string::npos)
                return false;
            const std::string_view v(s);
            lists_.add_merge(v.substr(0, space), v.substr(space + 1));
            return true;
        }
        if (mode_ == Mode::MergePair) {
            if (pair_parts_ == 0) {
                pair_begin_ = static_cast<uint32_t>(lists_.bytes.size());
                pair_split_ = lists_.append(s);
            } else if (pair_parts_ == 1) {
                pair_end_ = lists_.append(s);
            } else {
                return false;
            }
            ++pair_parts_;
            return true;
        }
        return in_tree() && JsonTreeBuilder::string(s);
    }
    bool start_object(size_t) {
        const Pending pending = pending_;
        if (!in_tree()) return false;
        if (pending == Pending::Vocab) {
            mode_ = Mode::Vocab;
            lists_.has_vocab = true;
            return true;
        }
        Json *obj = open(Json::value_t::object);
        if (pending == Pending::Model) model = obj;
        return true;
    }
    bool key(std::string &k) {
        if (mode_ == Mode::Vocab) {
            key_begin_ = static_cast<uint32_t>(lists_.bytes.size());
            key_end_ = lists_.append(k);
            return true;
        }
        if (!in_tree()) return false;
        if (depth() == 1 && k == "model")
            pending_ = Pending::Model;
        else if (innermost() == model && k == "vocab")
            pending_ = Pending::Vocab;
        else if (innermost() == model && k == "merges")
            pending_ = Pending::Merges;
        // A list read leaves its key holding null in the tree, so that a
        // second one is a duplicate too; read_tokenizer_json removes it.
        return JsonTreeBuilder::key(k);
    }
    bool end_object() {
        if (mode_ == Mode::Vocab) {
            mode_ = Mode::Dom;
            if (duplicate.empty()) duplicate = repeated_vocab_key();
            return true;
        }
        return in_tree() && JsonTreeBuilder::end_object();
    }
    bool start_array(size_t n) {
        if (mode_ == Mode::Merges) {
            mode_ = Mode::MergePair;
            pair_parts_ = 0;
            return true;
        }
        const Pending pending = pending_;
        if (!in_tree()) return false;
        if (pending == Pending::Merges) {
            mode_ = Mode::Merges;
            lists_.has_merges = true;
            return true;
        }
        return JsonTreeBuilder::start_array(n);
    }
    bool end_array() {
        if (mode_ == Mode::MergePair) {
            if (pair_parts_ != 2) return false;
            lists_.merges.push_back({pair_begin_, pair_split_, pair_end_});
            mode_ = Mode::Merges;
            return true;
        }
        if (mode_ == Mode::Merges) {
            mode_ = Mode::Dom;
            return true;
        }
        return in_tree() && JsonTreeBuilder::end_array();
    }

  private:
    enum class Mode { Dom, Vocab, Merges, MergePair };
    enum class Pending { None, Model, Vocab, Merges }; // what the last key names

    // Whether the event goes to the tree (else it is one the lists do not
    // take); the value of the last key is being read either way.
    bool in_tree() {
        pending_ = Pending::None;
        return mode_ == Mode::Dom;
    }

    bool vocab_id(int64_t id) {
        lists_.vocab.push_back({key_begin_, key_end_, id});
        return true;
    }

    // The first vocabulary key that repeats an earlier one, "" if none
    // (a duplicate key, as the tree would have it).
    std::string repeated_vocab_key() const {
        const auto &vocab = lists_.vocab;
        size_t slots = 16;
        while (slots < vocab.size() * 2)
            slots *= 2;
        std::vector<uint32_t> table(slots, UINT32_MAX); // index into vocab
        for (size_t i = 0; i < vocab.size(); ++i) {
            const std::string_view s = lists_.text(vocab[i].begin, vocab[i].end);
            uint64_t h = 14695981039346656037ull; // FNV-1a
            for (char c : s)
                h = (h ^ static_cast<uint8_t>(c)) * 1099511628211ull;
            size_t at = static_cast<size_t>(h) & (slots - 1);
            for (; table[at] != UINT32_MAX; at = (at + 1) & (slots - 1)) {
                const BpeLists::Token &t = vocab[table[at]];
                if (lists_.text(t.begin, t.end) == s) return std::string(s);
            }
            table[at] = static_cast<uint32_t>(i);
        }
        return "";
    }

    BpeLists &lists_;
    Mode mode_ = Mode::Dom;
    Pending pending_ = Pending::None;
    uint32_t key_begin_ = 0, key_end_ = 0;
    uint32_t pair_begin_ = 0, pair_split_ = 0, pair_end_ = 0;
    int pair_parts_ = 0;
};

} // namespace

TokenizerJson read_tokenizer_json(const std::string &text, const std::string &file) {
    TokenizerJson out;
    {
        TokenizerJsonSax sax(out.lists);
        bool ok = false;
        try {
            ok = Json::sax_parse(text.data(), text.data() + text.size(), &sax);
        } catch (const Json::exception &) {
            ok = false;
        }
        if (ok || !sax.error.empty()) {
            sax.check(file); // parse_json's errors
            if (sax.model) {
                if (out.lists.has_vocab) sax.model->erase("vocab");
                if (out.lists.has_merges) sax.model->erase("merges");
            }
            out.root = std::move(sax.root);
            return out;
        }
    }
    // A vocabulary or merges of another shape: the whole tree.
    out.lists = BpeLists();
    out.root = hf_json::parse(text, file);
    return out;
}

} // namespace llm
