// Broken model and tokenizer files: each failure has its own status and a
// message that says what is wrong, and nothing crashes or leaks (the ASan
// build runs these too; a header asking for terabytes would abort there if
// anything were allocated before the size checks).
#include <catch2/catch.hpp>

#include <climits>
#include <cstring>
#include <sys/stat.h>

#include "support/api_helpers.h"
#include "support/llama2c_writer.h"
#include "support/test_support.h"

using namespace test;

namespace {

struct LoadResult {
    llm_status status;
    std::string message;
};

LoadResult load(const std::string &path, const std::string &tokenizer = "") {
    llm_model_params p = llm_model_default_params();
    p.tokenizer_path = tokenizer.empty() ? nullptr : tokenizer.c_str();
    llm_model *m = reinterpret_cast<llm_model *>(&p); // must be reset to NULL
    llm_status s = llm_model_load(path.c_str(), &p, &m);
    LoadResult r{s, llm_last_error()};
    if (s == LLM_OK) {
        llm_model_free(m);
    } else {
        CHECK(m == nullptr);
        CHECK(std::string(llm_status_str(s)) != "unknown status");
    }
    return r;
}

// A copy of stories260K.bin with a changed header field, in a fresh folder
// with tok512.bin beside it.
struct Files {
    std::string dir = temp_dir();
    std::string real = read_file(shared_path("models/stories260K.bin"));
    std::string tok512 = read_file(shared_path("models/tok512.bin"));
    std::string model = dir + "/model.bin";
    std::string tokenizer = dir + "/tokenizer.bin";
    Files() { write_file(tokenizer, tok512); }
    void write_model(const std::string &bytes) { write_file(model, bytes); }
    void write_with_field(int field, int32_t value) {
        std::string b = real;
        std::memcpy(&b[static_cast<size_t>(field) * 4], &value, 4);
        write_model(b);
    }
};

enum Field { kDim, kHidden, kLayers, kHeads, kKvHeads, kVocab, kSeqLen };

// Byte offset just past tokenizer entry `n` (max_token_length, then per
// entry: score, length, bytes).
size_t tokenizer_prefix(const std::string &tok, int n) {
    size_t off = 4;
    for (int i = 0; i < n; ++i) {
        int32_t len;
        std::memcpy(&len, tok.data() + off + 4, 4);
        off += 8 + static_cast<size_t>(len);
    }
    return off;
}

} // namespace

TEST_CASE("the real files load (the baseline for the cases below)", "[bad_input]") {
    Files f;
    f.write_model(f.real);
    auto r = load(f.model);
    INFO(r.message);
    CHECK(r.status == LLM_OK);
}

TEST_CASE("a missing file is NOT_FOUND and names the path", "[bad_input]") {
    Files f;
    auto r = load(f.dir + "/nope.bin");
    CHECK(r.status == LLM_ERR_NOT_FOUND);
    CHECK_THAT(r.message, Catch::Contains(f.dir + "/nope.bin"));

    f.write_model(f.real);
    r = load(f.model, f.dir + "/missing-tokenizer.bin");
    CHECK(r.status == LLM_ERR_NOT_FOUND);
    CHECK_THAT(r.message, Catch::Contains("missing-tokenizer.bin"));

    // The default tokenizer is tokenizer.bin beside the model.
    std::remove(f.tokenizer.c_str());
    r = load(f.model);
    CHECK(r.status == LLM_ERR_NOT_FOUND);
    CHECK_THAT(r.message, Catch::Contains(f.tokenizer));
}

TEST_CASE("a path that is not a regular file is an I/O error", "[bad_input]") {
    Files f;
    f.write_model(f.real);
    auto r = load(f.model, f.dir);
    CHECK(r.status == LLM_ERR_IO);
    CHECK_THAT(r.message, Catch::Contains("not a regular file"));
    r = load(f.model, "/dev/null");
    CHECK(r.status == LLM_ERR_IO);
    // A FIFO must be refused, not waited on for a writer that never comes.
    const std::string fifo = f.dir + "/fifo";
    REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
    r = load(fifo);
    CHECK(r.status == LLM_ERR_IO);
    CHECK_THAT(r.message, Catch::Contains("not a regular file"));
    r = load(f.model, fifo);
    CHECK(r.status == LLM_ERR_IO);
}

TEST_CASE("an empty path is INVALID_ARGUMENT", "[bad_input]") {
    auto r = load("");
    CHECK(r.status == LLM_ERR_INVALID_ARGUMENT);
}

TEST_CASE("a truncated checkpoint is TRUNCATED with both sizes in the message", "[bad_input]") {
    Files f;
    f.write_model(f.real.substr(0, 1000));
    auto r = load(f.model);
    CHECK(r.status == LLM_ERR_TRUNCATED);
    CHECK_THAT(r.message, Catch::Contains("1000") && Catch::Contains("1056540"));

    for (size_t n : {0, 10, 27}) { // shorter than the 28-byte header
        f.write_model(f.real.substr(0, n));
        r = load(f.model);
        INFO(n << " bytes: " << r.message);
        CHECK(r.status == LLM_ERR_TRUNCATED);
        CHECK_THAT(r.message, Catch::Contains("header"));
    }
    f.write_model(f.real.substr(0, f.real.size() - 1));
    CHECK(load(f.model).status == LLM_ERR_TRUNCATED);
}

TEST_CASE("a checkpoint longer than its header says is SIZE_MISMATCH", "[bad_input]") {
    Files f;
    f.write_model(f.real + std::string(4, '\0'));
    auto r = load(f.model);
    CHECK(r.status == LLM_ERR_SIZE_MISMATCH);
    CHECK_THAT(r.message, Catch::Contains("1056544") && Catch::Contains("1056540"));
}

TEST_CASE("zero, negative and inconsistent dims are BAD_DIMENSIONS naming the field",
          "[bad_input]") {
    Files f;
    struct Case {
        Field field;
        int32_t value;
        const char *says;
    } cases[] = {
        {kDim, 0, "dim"},
        {kDim, -64, "dim"},
        {kHidden, 0, "hidden_dim"},
        {kHidden, -1, "hidden_dim"},
        {kLayers, 0, "n_layers"},
        {kLayers, INT_MIN, "n_layers"},
        {kHeads, 0, "n_heads"},
        {kKvHeads, 0, "n_kv_heads"},
        {kKvHeads, -4, "n_kv_heads"},
        {kVocab, 0, "vocab_size"},
        {kSeqLen, 0, "seq_len"},
        {kSeqLen, -512, "seq_len"},
        {kHeads, 3, "not a multiple of n_heads"},      // 64 % 3
        {kKvHeads, 3, "not a multiple of n_kv_heads"}, // 8 % 3
        {kHeads, 64, "odd"},                           // head size 1: RoPE needs pairs
    };
    for (const Case &c : cases) {
        f.write_with_field(c.field, c.value);
        auto r = load(f.model);
        INFO("field " << c.field << " = " << c.value << ": " << r.message);
        CHECK(r.status == LLM_ERR_BAD_DIMENSIONS);
        CHECK_THAT(r.message, Catch::Contains(c.says));
    }
}

TEST_CASE("absurd dims are rejected before anything is allocated", "[bad_input]") {
    Files f;
    // Each beyond the loader's limits: BAD_DIMENSIONS from the header alone.
    for (auto [field, value] : {std::pair<Field, int32_t>{kDim, 1 << 30},
                                {kHidden, INT_MAX},
                                {kLayers, 1 << 20},
                                {kHeads, 1 << 20},
                                {kVocab, 1 << 30},
                                {kVocab, INT_MIN},
                                {kSeqLen, INT_MAX}}) {
        f.write_with_field(field, value);
        auto r = load(f.model);
        INFO("field " << field << " = " << value << ": " << r.message);
        CHECK(r.status == LLM_ERR_BAD_DIMENSIONS);
        CHECK_THAT(r.message, Catch::Contains("outside"));
    }
    // Every dim at its limit asks for ~10^14 bytes: the size check refuses it
    // from the 28-byte header, without allocating (ASan aborts on such sizes).
    f.write_model(llama2c_header_bytes({65536, 262144, 1024, 1024, 1024, 1 << 22, 1 << 22}));
    auto r = load(f.model);
    CHECK(r.status == LLM_ERR_TRUNCATED);
    CHECK_THAT(r.message, Catch::Contains("needs"));
    // A consistent file whose vocabulary outgrows the tokenizer fails on the
    // tokenizer, not on memory.
    f.write_model(make_llama2c_checkpoint({8, 8, 1, 2, 1, 600, 8}));
    CHECK(load(f.model).status == LLM_ERR_TOKENIZER_MISMATCH);
}

TEST_CASE("llama2.c export versions 1 and 2 are UNSUPPORTED with a hint", "[bad_input]") {
    Files f;
    // export.py writes the magic as uint32 0x616b3432 ("ak42") then the version.
    f.write_with_field(kDim, 0x616b3432);
    auto r = load(f.model);
    CHECK(r.status == LLM_ERR_UNSUPPORTED);
    CHECK_THAT(r.message, Catch::Contains("--version 0"));
}

TEST_CASE("a tokenizer with fewer entries than the vocab is TOKENIZER_MISMATCH", "[bad_input]") {
    Files f;
    f.write_model(f.real);
    write_file(f.tokenizer, f.tok512.substr(0, tokenizer_prefix(f.tok512, 100)));
    auto r = load(f.model);
    CHECK(r.status == LLM_ERR_TOKENIZER_MISMATCH);
    CHECK_THAT(r.message, Catch::Contains("only 100 tokens") && Catch::Contains("512"));

    // A model with a larger vocabulary than tok512 holds.
    write_file(f.tokenizer, f.tok512);
    f.write_model(make_llama2c_checkpoint({8, 8, 1, 2, 1, 513, 8}));
    r = load(f.model);
    CHECK(r.status == LLM_ERR_TOKENIZER_MISMATCH);
    CHECK_THAT(r.message, Catch::Contains("only 512 tokens") && Catch::Contains("513"));
}

TEST_CASE("malformed tokenizer entries are FORMAT or TRUNCATED", "[bad_input]") {
    Files f;
    f.write_model(f.real);
    auto with = [&](size_t offset, const void *bytes) {
        std::string t = f.tok512;
        std::memcpy(&t[offset], bytes, 4);
        write_file(f.tokenizer, t);
        return load(f.model);
    };
    const int32_t zero = 0, negative = -3, huge = 1 << 24;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    auto r = with(0, &zero); // max_token_length
    CHECK(r.status == LLM_ERR_FORMAT);
    CHECK_THAT(r.message, Catch::Contains("max_token_length"));
    r = with(8, &negative); // length of token 0
    CHECK(r.status == LLM_ERR_FORMAT);
    CHECK_THAT(r.message, Catch::Contains("token 0 has length -3"));
    r = with(4, &nan); // score of token 0
    CHECK(r.status == LLM_ERR_FORMAT);
    CHECK_THAT(r.message, Catch::Contains("non-finite score"));
    // A length within max_token_length that runs past the end of the file.
    std::string t = f.tok512.substr(0, tokenizer_prefix(f.tok512, 511) + 10);
    write_file(f.tokenizer, t);
    r = load(f.model);
    CHECK(r.status == LLM_ERR_TRUNCATED);
    CHECK_THAT(r.message, Catch::Contains("token 511"));
    r = with(0, &huge);
    CHECK(r.status == LLM_ERR_FORMAT);
}

TEST_CASE("an unknown weight_type is INVALID_ARGUMENT", "[bad_input]") {
    llm_model_params p = llm_model_default_params();
    const std::string tok = shared_path("models/tok512.bin");
    p.tokenizer_path = tok.c_str();
    p.weight_type = 99;
    llm_model *m = nullptr;
    CHECK(llm_model_load(shared_path("models/stories260K.bin").c_str(), &p, &m) ==
          LLM_ERR_INVALID_ARGUMENT);
    CHECK(m == nullptr);
    CHECK_THAT(std::string(llm_last_error()), Catch::Contains("weight_type 99"));
}
