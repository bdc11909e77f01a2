#include "fuzz_support.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <unistd.h>

#include "support/test_support.h"

namespace fuzz {

namespace {
void remove_scratch() {
    std::error_code ec;
    std::filesystem::remove_all(scratch_dir(), ec);
}
} // namespace

const std::string &scratch_dir() {
    static const std::string dir = [] {
        const char *env = std::getenv("LLM_FUZZ_SCRATCH");
        std::string root = env && *env                                 ? env
                           : std::filesystem::is_directory("/dev/shm") ? "/dev/shm"
                                                                       : "/tmp";
        std::string tmpl = root + "/llm-fuzz-" + std::to_string(getpid()) + "-XXXXXX";
        if (!mkdtemp(tmpl.data())) violation("cannot create a scratch folder in " + root);
        return tmpl;
    }();
    static const bool registered = (std::atexit(remove_scratch), true);
    (void)registered;
    return dir;
}

void put_file(const std::string &path, const std::string_view *bytes) {
    if (!bytes) {
        std::remove(path.c_str());
        return;
    }
    FILE *f = std::fopen(path.c_str(), "wb");
    if (!f) violation("cannot write " + path);
    if (!bytes->empty()) std::fwrite(bytes->data(), 1, bytes->size(), f);
    std::fclose(f);
}

void violation(const std::string &what) {
    std::fprintf(stderr, "\n*** llm.h promise broken: %s\n*** llm_last_error: %s\n", what.c_str(),
                 llm_last_error());
    std::abort();
}

void expect_handled(llm_status s, const char *call) {
    if (s == LLM_OK) return;
    if (s == LLM_ERR_INTERNAL || s > 0 || s < LLM_ERR_STATE_MISMATCH)
        violation(std::string(call) + " returned " + std::to_string(s) + " (" + llm_status_str(s) +
                  ")");
    if (llm_last_error()[0] == '\0')
        violation(std::string(call) + " failed with " + llm_status_str(s) + " but no message");
}

std::vector<std::string_view> split_parts(const uint8_t *data, size_t size) {
    std::string_view all(reinterpret_cast<const char *>(data), size);
    std::vector<std::string_view> parts;
    for (;;) {
        size_t at = all.find(kPartMarker);
        parts.push_back(all.substr(0, at));
        if (at == std::string_view::npos) break;
        all.remove_prefix(at + kPartMarker.size());
    }
    return parts;
}

llm_model *try_load(const std::string &path, const char *tokenizer_path) {
    llm_model_params p = llm_model_default_params();
    p.tokenizer_path = tokenizer_path;
    llm_model *m = nullptr;
    llm_status s = llm_model_load(path.c_str(), &p, &m);
    if (s != LLM_OK) {
        std::fprintf(stderr, "fuzz: %s not used: %s\n", path.c_str(), llm_last_error());
        return nullptr;
    }
    return m;
}

bool valid_utf8(std::string_view s) {
    size_t i = 0;
    while (i < s.size()) {
        const unsigned char b = static_cast<unsigned char>(s[i]);
        size_t len;
        uint32_t cp, min;
        if (b < 0x80) {
            ++i;
            continue;
        } else if ((b & 0xE0) == 0xC0) {
            len = 2, cp = b & 0x1F, min = 0x80;
        } else if ((b & 0xF0) == 0xE0) {
            len = 3, cp = b & 0x0F, min = 0x800;
        } else if ((b & 0xF8) == 0xF0) {
            len = 4, cp = b & 0x07, min = 0x10000;
        } else {
            return false;
        }
        if (s.size() - i < len) return false;
        for (size_t k = 1; k < len; ++k) {
            const unsigned char c = static_cast<unsigned char>(s[i + k]);
            if ((c & 0xC0) != 0x80) return false;
            cp = (cp << 6) | (c & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
        i += len;
    }
    return true;
}

namespace {

bool in_vocab(const llm_model *m, llm_token t) {
    return t >= 0 && t < llm_model_n_vocab(m);
}

// One streaming call under the (buf, cap, &needed) rules: a size query, a
// buffer one byte short (must consume nothing), then the exact size.
template <typename Call> std::string stream_call(Call call, size_t max_bytes, const char *name) {
    size_t need = 0;
    llm_status s = call(nullptr, 0, &need);
    expect_handled(s, name);
    if (s == LLM_OK) {
        if (need != 0) violation(std::string(name) + ": size query wrote " + std::to_string(need));
        return {};
    }
    if (s != LLM_ERR_BUFFER_TOO_SMALL)
        violation(std::string(name) + ": unexpected " + llm_status_str(s));
    if (need == 0 || need > max_bytes)
        violation(std::string(name) + ": needs " + std::to_string(need) + " bytes, max is " +
                  std::to_string(max_bytes));
    std::string buf(need, '\0');
    size_t n = 0;
    if (call(buf.data(), need - 1, &n) != LLM_ERR_BUFFER_TOO_SMALL || n != need)
        violation(std::string(name) + ": a buffer one byte short was not refused");
    if (call(buf.data(), need, &n) != LLM_OK || n != need)
        violation(std::string(name) + ": failed with the size it asked for");
    return buf;
}

} // namespace

void check_decode(const llm_model *m, const llm_token *ids, size_t n, int32_t flags) {
    std::vector<llm_token> in_range;
    for (size_t i = 0; i < n; ++i)
        if (in_vocab(m, ids[i])) in_range.push_back(ids[i]);
    const bool any_bad = in_range.size() != n;

    // Whole-sequence decode.
    size_t need = 0;
    llm_status s = llm_detokenize(m, ids, n, flags, nullptr, 0, &need);
    expect_handled(s, "llm_detokenize");
    if (any_bad) {
        if (s != LLM_ERR_TOKEN_OUT_OF_RANGE)
            violation("llm_detokenize accepted an out-of-range id");
        s = llm_detokenize(m, in_range.data(), in_range.size(), flags, nullptr, 0, &need);
        expect_handled(s, "llm_detokenize");
    }
    if (s != LLM_OK && s != LLM_ERR_BUFFER_TOO_SMALL)
        violation(std::string("llm_detokenize size query: ") + llm_status_str(s));
    std::string text(need, '\0');
    size_t got = 0;
    s = llm_detokenize(m, in_range.data(), in_range.size(), flags, text.data(), text.size(), &got);
    if (s != LLM_OK || got != need) violation("llm_detokenize failed with the size it asked for");

    // Streaming decode: only complete UTF-8 ever comes out.
    llm_detokenizer *d = nullptr;
    expect_handled(llm_detokenizer_new(m, &d), "llm_detokenizer_new");
    const size_t max_bytes = llm_detokenizer_max_bytes(d);
    std::string streamed;
    for (size_t i = 0; i < n; ++i) {
        const llm_token t = ids[i];
        if (!in_vocab(m, t)) {
            size_t q = 7;
            if (llm_detokenizer_push(d, t, nullptr, 0, &q) != LLM_ERR_TOKEN_OUT_OF_RANGE)
                violation("llm_detokenizer_push accepted id " + std::to_string(t));
            continue;
        }
        std::string piece = stream_call(
            [&](char *b, size_t c, size_t *o) { return llm_detokenizer_push(d, t, b, c, o); },
            max_bytes, "llm_detokenizer_push");
        if (!valid_utf8(piece)) violation("llm_detokenizer_push wrote invalid UTF-8");
        streamed += piece;
    }
    streamed +=
        stream_call([&](char *b, size_t c, size_t *o) { return llm_detokenizer_flush(d, b, c, o); },
                    max_bytes, "llm_detokenizer_flush");
    llm_detokenizer_free(d);
    if (!valid_utf8(streamed)) violation("the detokenizer stream is not valid UTF-8");
    // The stream never renders special tokens; when the plain decode is
    // valid UTF-8 the two must agree byte for byte.
    if (!(flags & LLM_DETOKENIZE_RENDER_SPECIAL) && valid_utf8(text) && streamed != text)
        violation("stream decode differs from llm_detokenize");
}

void exercise_model(llm_model *m) {
    const int32_t n_vocab = llm_model_n_vocab(m);
    if (n_vocab <= 0 || llm_model_n_ctx_train(m) <= 0 || llm_model_n_embd(m) <= 0 ||
        llm_model_n_layer(m) <= 0 || llm_model_n_head(m) <= 0 || llm_model_n_head_kv(m) <= 0 ||
        llm_model_n_params(m) <= 0 || llm_model_weight_bytes(m) <= 0)
        violation("a loaded model reports a non-positive shape");
    for (llm_token t : {llm_model_bos(m), llm_model_eos(m)})
        if (t != LLM_TOKEN_NONE && !in_vocab(m, t)) violation("BOS/EOS outside the vocabulary");

    const std::string prompt = "Once upon a time, \xF0\x9F\x98\x80 <s> <|im_start|>";
    size_t n = 0;
    llm_status s =
        llm_tokenize(m, prompt.data(), prompt.size(),
                     LLM_TOKENIZE_ADD_SPECIAL | LLM_TOKENIZE_PARSE_SPECIAL, nullptr, 0, &n);
    expect_handled(s, "llm_tokenize");
    std::vector<llm_token> ids(n);
    s = llm_tokenize(m, prompt.data(), prompt.size(),
                     LLM_TOKENIZE_ADD_SPECIAL | LLM_TOKENIZE_PARSE_SPECIAL, ids.data(), ids.size(),
                     &n);
    if (s != LLM_OK || n != ids.size()) violation("llm_tokenize failed with the size it asked for");
    for (llm_token t : ids)
        if (!in_vocab(m, t)) violation("llm_tokenize produced id " + std::to_string(t));
    check_decode(m, ids.data(), ids.size(), 0);
    check_decode(m, ids.data(), ids.size(), LLM_DETOKENIZE_RENDER_SPECIAL);

    llm_context_params cp = llm_context_default_params();
    cp.n_ctx = std::min(8, llm_model_n_ctx_train(m));
    cp.n_threads = 1;
    llm_context *ctx = nullptr;
    s = llm_context_new(m, &cp, &ctx);
    expect_handled(s, "llm_context_new");
    if (s != LLM_OK) return; // e.g. OUT_OF_MEMORY for a huge but consistent model
    llm_sampler_params sp = llm_sampler_default_params();
    sp.seed = 42;
    llm_sampler *sampler = nullptr;
    expect_handled(llm_sampler_new(&sp, &sampler), "llm_sampler_new");
    if (ids.empty()) ids.push_back(0);
    const size_t n_prompt =
        std::clamp<size_t>(ids.size(), 1, static_cast<size_t>(cp.n_ctx + 1) / 2);
    s = llm_forward(ctx, ids.data(), n_prompt);
    expect_handled(s, "llm_forward");
    if (s != LLM_OK) {
        if (s != LLM_ERR_OUT_OF_MEMORY)
            violation(std::string("llm_forward on a fresh context: ") + llm_status_str(s));
        llm_sampler_free(sampler);
        llm_context_free(ctx);
        return;
    }
    std::vector<char> buf(llm_context_step_max_bytes(ctx));
    for (;;) {
        llm_token t = LLM_TOKEN_NONE;
        int32_t eog = 0;
        size_t len = 0;
        s = llm_context_step(ctx, sampler, &t, &eog, buf.data(), buf.size(), &len);
        expect_handled(s, "llm_context_step");
        if (!in_vocab(m, t)) violation("llm_context_step sampled id " + std::to_string(t));
        if (len > buf.size()) violation("llm_context_step wrote more than its maximum");
        if (eog || s == LLM_ERR_CONTEXT_FULL) break;
        if (s != LLM_OK) violation(std::string("llm_context_step: ") + llm_status_str(s));
    }
    size_t pos = static_cast<size_t>(llm_context_position(ctx));
    std::vector<llm_token> seen(pos);
    if (llm_context_tokens(ctx, seen.data(), seen.size(), &n) != LLM_OK || n != pos)
        violation("llm_context_tokens disagrees with llm_context_position");
    check_decode(m, seen.data(), seen.size(), 0);
    llm_sampler_free(sampler);
    llm_context_free(ctx);
}

} // namespace fuzz
