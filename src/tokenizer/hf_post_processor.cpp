#include "tokenizer/hf_post_processor.h"

#include "common/error.h"

namespace llm {

using hf_json::Json;
using hf_json::Where;

namespace {
constexpr int kMaxDepth = 8;

void parse_into(const Json &config, int32_t vocab_size, const Where &w, int depth,
                SpecialTemplate &out) {
    if (depth > kMaxDepth) hf_json::bad(w, "Sequence nested too deeply");
    hf_json::as_object(config, w);
    const std::string &type = hf_json::as_string(hf_json::require(config, "type", w), w / "type");
    auto id_of = [&](const Json &v, const Where &vw) {
        return static_cast<int32_t>(hf_json::as_int(v, 0, vocab_size - 1, vw));
    };
    if (type == "ByteLevel") return;
    if (type == "Sequence") {
        const Json &list =
            hf_json::as_array(hf_json::require(config, "processors", w), w / "processors");
        for (size_t i = 0; i < list.size(); ++i)
            parse_into(list[i], vocab_size, (w / "processors")[i], depth + 1, out);
    } else if (type == "BertProcessing" || type == "RobertaProcessing") {
        // "cls": ["[CLS]", 101], "sep": ["[SEP]", 102]
        for (const char *key : {"cls", "sep"}) {
            const Where kw = w / key;
            const Json &pair = hf_json::as_array(hf_json::require(config, key, w), kw);
            if (pair.size() != 2) hf_json::bad(kw, "expected [token, id]");
            (key[0] == 'c' ? out.prefix : out.suffix).push_back(id_of(pair[1], kw[1]));
        }
    } else if (type == "TemplateProcessing") {
        const Where sw = w / "single";
        const Json &single = hf_json::as_array(hf_json::require(config, "single", w), sw);
        const Json *specials = hf_json::member(config, "special_tokens");
        bool seen_sequence = false;
        for (size_t i = 0; i < single.size(); ++i) {
            const Json &item = hf_json::as_object(single[i], sw[i]);
            if (hf_json::member(item, "Sequence")) {
                if (seen_sequence) hf_json::bad(sw[i], "a second sequence in 'single'");
                seen_sequence = true;
                continue;
            }
            const Json &tok = hf_json::as_object(hf_json::require(item, "SpecialToken", sw[i]),
                                                 sw[i] / "SpecialToken");
            const std::string &name = hf_json::as_string(
                hf_json::require(tok, "id", sw[i] / "SpecialToken"), sw[i] / "SpecialToken" / "id");
            const Where tw = w / "special_tokens" / name;
            const Json *entry = specials ? hf_json::member(*specials, name.c_str()) : nullptr;
            if (!entry) hf_json::bad(tw, "missing (named in 'single')");
            const Json &ids = hf_json::as_array(hf_json::require(*entry, "ids", tw), tw / "ids");
            for (size_t k = 0; k < ids.size(); ++k)
                (seen_sequence ? out.suffix : out.prefix).push_back(id_of(ids[k], (tw / "ids")[k]));
        }
        if (!seen_sequence) hf_json::bad(sw, "no {\"Sequence\": ...} item");
    } else {
        fail(LLM_ERR_UNSUPPORTED, (w / "type").str(), ": post-processor '", type,
             "' is not supported (TemplateProcessing, BertProcessing, RobertaProcessing, "
             "ByteLevel, Sequence are)");
    }
}
} // namespace

SpecialTemplate parse_post_processor(const Json *config, int32_t vocab_size, const Where &w) {
    SpecialTemplate t;
    if (config) parse_into(*config, vocab_size, w, 0, t);
    return t;
}

} // namespace llm
