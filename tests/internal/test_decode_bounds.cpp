// Decoding ids the tokenizer does not know: a model's vocabulary (embedding
// rows) may be larger than its tokenizer's (Qwen pads 151665 tokens to
// 151936 rows). Such ids decode to nothing, in llm_detokenize and in the
// streaming detokenizer alike (a fuzzed tokenizer.json found the two
// disagreeing: the stream refused ids that llm_detokenize accepted).
#include <catch2/catch.hpp>

#include "common/mapped_file.h"
#include "support/test_support.h"
#include "tokenizer/llama2c_tokenizer.h"

TEST_CASE("decode_append of an id beyond the tokenizer's vocabulary adds nothing", "[tokenizer]") {
    auto file = llm::MappedFile::open(test::shared_path("models/tok512.bin"));
    auto tok = llm::Llama2cTokenizer::load(*file, 300);
    REQUIRE(tok->vocab_size() == 300);
    llm::DecodeState state;
    std::string out;
    tok->decode_append(state, 1, false, out); // BOS
    for (int32_t id : {300, 511, 100000, -1}) {
        tok->decode_append(state, id, true, out);
        CHECK(out.empty());
        CHECK(state.prev == id);
    }
    tok->decode_append(state, 280, false, out);
    CHECK(out == tok->piece(280)); // not after BOS: a leading space stays
}
