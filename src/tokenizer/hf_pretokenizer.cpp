#include "tokenizer/hf_pretokenizer.h"

#include "common/error.h"
#include "tokenizer/hf_normalizer.h"

namespace llm {

using hf_json::Json;
using hf_json::Where;

namespace {
constexpr int kMaxDepth = 8;
constexpr size_t kMaxSteps = 32; // words pass the steps recursively
// The pattern ByteLevel applies when use_regex is true (GPT-2's).
const char kGpt2Pattern[] =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
} // namespace

HfPreTokenizer::HfPreTokenizer(const Json *config, const Where &w) {
    if (config) add(*config, w, 0);
}

void HfPreTokenizer::add_step(Step step, const Where &w) {
    if (steps_.size() == kMaxSteps) hf_json::bad(w, "more than 32 pre-tokenizer steps");
    steps_.push_back(std::move(step));
}

void HfPreTokenizer::add(const Json &config, const Where &w, int depth) {
    if (depth > kMaxDepth) hf_json::bad(w, "Sequence nested too deeply");
    hf_json::as_object(config, w);
    const std::string &type = hf_json::as_string(hf_json::require(config, "type", w), w / "type");
    if (byte_level_)
        fail(LLM_ERR_UNSUPPORTED, w.str(),
             ": a pre-tokenizer after ByteLevel is not supported (ByteLevel must come last)");
    if (type == "Sequence") {
        const Json &list =
            hf_json::as_array(hf_json::require(config, "pretokenizers", w), w / "pretokenizers");
        for (size_t i = 0; i < list.size(); ++i)
            add(list[i], (w / "pretokenizers")[i], depth + 1);
    } else if (type == "Split") {
        Step s;
        s.literal = hf_pattern(hf_json::require(config, "pattern", w), w / "pattern", s.regex);
        if (hf_json::bool_or(config, "invert", false, w))
            fail(LLM_ERR_UNSUPPORTED, (w / "invert").str(), ": inverted Split is not supported");
        const std::string &b =
            hf_json::as_string(hf_json::require(config, "behavior", w), w / "behavior");
        if (b == "Isolated")
            s.behavior = Behavior::Isolated;
        else if (b == "Removed")
            s.behavior = Behavior::Removed;
        else if (b == "MergedWithPrevious")
            s.behavior = Behavior::MergedWithPrevious;
        else if (b == "MergedWithNext")
            s.behavior = Behavior::MergedWithNext;
        else if (b == "Contiguous")
            s.behavior = Behavior::Contiguous;
        else
            hf_json::bad(w / "behavior", "unknown behavior '" + b + "'");
        add_step(std::move(s), w);
    } else if (type == "ByteLevel") {
        Step s;
        s.add_prefix_space = hf_json::bool_or(config, "add_prefix_space", true, w);
        if (hf_json::bool_or(config, "use_regex", true, w))
            s.regex = std::make_shared<PretokenizerRegex>(kGpt2Pattern, (w / "use_regex").str());
        if (s.regex || s.add_prefix_space) add_step(std::move(s), w); // else the identity
        byte_level_ = true;
    } else {
        fail(LLM_ERR_UNSUPPORTED, (w / "type").str(), ": pre-tokenizer '", type,
             "' is not supported (Split, ByteLevel, Sequence are)");
    }
}

// Runs step `step` on one piece and passes what it cuts to the next step.
void HfPreTokenizer::apply(size_t step, std::string_view piece, std::deque<std::string> &storage,
                           WordSink &sink) const {
    if (step == steps_.size()) {
        if (!piece.empty()) sink.word(piece);
        return;
    }
    const Step &s = steps_[step];
    if (s.add_prefix_space && (piece.empty() || piece[0] != ' ')) {
        storage.emplace_back(" ");
        storage.back().append(piece);
        piece = storage.back();
    }
    if (!s.regex && s.literal.empty()) { // ByteLevel without its regex
        apply(step + 1, piece, storage, sink);
        return;
    }
    auto emit = [&](size_t from, size_t to) {
        if (to > from) apply(step + 1, piece.substr(from, to - from), storage, sink);
    };
    size_t at = 0; // start of the text not yet emitted
    auto delimiter = [&](size_t start, size_t end) {
        switch (s.behavior) {
        case Behavior::Isolated:
        case Behavior::Contiguous:
            emit(at, start);
            emit(start, end);
            at = end;
            break;
        case Behavior::Removed:
            emit(at, start);
            at = end;
            break;
        case Behavior::MergedWithPrevious:
            emit(at, end);
            at = end;
            break;
        case Behavior::MergedWithNext:
            emit(at, start);
            at = start;
            break;
        }
    };
    // Contiguous: adjacent delimiters form one, so each is held until the
    // next one shows it does not continue.
    bool held = false;
    size_t held_start = 0, held_end = 0;
    auto match = [&](size_t start, size_t end) {
        if (s.behavior != Behavior::Contiguous) {
            delimiter(start, end);
        } else if (held && held_end == start) {
            held_end = end;
        } else {
            if (held) delimiter(held_start, held_end);
            held = true, held_start = start, held_end = end;
        }
    };
    if (s.regex) {
        PretokenizerRegex::Matches it(*s.regex, piece);
        for (size_t start, end; it.next(start, end);)
            match(start, end);
    } else {
        for (size_t hit = piece.find(s.literal); hit != std::string_view::npos;
             hit = piece.find(s.literal, hit + s.literal.size()))
            match(hit, hit + s.literal.size());
    }
    if (held) delimiter(held_start, held_end);
    emit(at, piece.size());
}

void HfPreTokenizer::for_each_word(std::string_view text, std::deque<std::string> &storage,
                                   WordSink &sink) const {
    apply(0, text, storage, sink);
}

} // namespace llm
