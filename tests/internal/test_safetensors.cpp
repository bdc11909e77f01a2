// The safetensors reader on hand-made files: valid layouts, and every kind
// of broken header giving a clear llm::Error (never a crash).
#include <catch2/catch.hpp>

#include <cstring>

#include "loaders/safetensors.h"
#include "support/engine_helpers.h"
#include "support/test_support.h"

using namespace test;

namespace {

std::string u64_le(uint64_t v) {
    std::string s(8, '\0');
    for (int i = 0; i < 8; ++i)
        s[static_cast<size_t>(i)] = static_cast<char>(v >> (8 * i));
    return s;
}

// A safetensors file from a header text and the data section.
std::string file_bytes(const std::string &header, const std::string &data) {
    return u64_le(header.size()) + header + data;
}

std::string write_temp(const std::string &bytes, const std::string &name = "t.safetensors") {
    std::string path = temp_dir() + "/" + name;
    write_file(path, bytes);
    return path;
}

// The parsed tensors and the mapping their data points into.
struct Parsed {
    std::shared_ptr<llm::MappedFile> file;
    std::vector<llm::SafeTensor> tensors;
};

Parsed parse(const std::string &bytes) {
    auto file = llm::MappedFile::open(write_temp(bytes));
    auto tensors = llm::parse_safetensors(*file);
    return {file, std::move(tensors)};
}

// status and message of parsing `bytes`
llm::Error parse_error(const std::string &bytes) {
    return error_of([&] { parse(bytes); });
}

// Two tensors: a [2, 3] F32 and a [4] BF16, back to back (32 bytes).
const char *const kGoodHeader = R"({"__metadata__":{"format":"pt"},)"
                                R"("a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},)"
                                R"("b":{"dtype":"BF16","shape":[4],"data_offsets":[24,32]}})";

std::string data_bytes(size_t n) {
    std::string d(n, '\0');
    for (size_t i = 0; i < n; ++i)
        d[i] = static_cast<char>(i);
    return d;
}

// The good file with one entry's JSON replaced.
std::string with_entry(const std::string &b_entry, size_t data = 32) {
    return file_bytes(R"({"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},"b":)" + b_entry +
                          "}",
                      data_bytes(data));
}

} // namespace

TEST_CASE("safetensors: a valid file gives names, dtypes, shapes and data", "[safetensors]") {
    auto p = parse(file_bytes(kGoodHeader, data_bytes(32)));
    auto &t = p.tensors;
    REQUIRE(t.size() == 2);
    std::sort(t.begin(), t.end(), [](auto &x, auto &y) { return x.name < y.name; });
    CHECK(t[0].name == "a");
    CHECK(t[0].dtype == llm::DType::F32);
    CHECK(t[0].shape == std::vector<int64_t>{2, 3});
    CHECK(t[0].bytes == 24);
    CHECK(t[0].data[0] == 0);
    CHECK(t[1].dtype == llm::DType::BF16);
    CHECK(t[1].shape == std::vector<int64_t>{4});
    CHECK(t[1].data[0] == 24);
    CHECK(t[1].bytes == 8);
}

TEST_CASE("safetensors: padding, holes and empty tensors are accepted", "[safetensors]") {
    // Space padding after the JSON, a gap between tensors, a zero-size
    // tensor and a scalar.
    auto p = parse(file_bytes(R"({"a":{"dtype":"F16","shape":[2],"data_offsets":[0,4]},)"
                              R"("e":{"dtype":"F32","shape":[0,5],"data_offsets":[2,2]},)"
                              R"("s":{"dtype":"F32","shape":[],"data_offsets":[8,12]}}      )",
                              data_bytes(16)));
    CHECK(p.tensors.size() == 3);
}

TEST_CASE("safetensors: content sniffing", "[safetensors]") {
    std::string good = file_bytes(kGoodHeader, data_bytes(32));
    CHECK(llm::looks_like_safetensors(reinterpret_cast<const uint8_t *>(good.data()), good.size()));
    // A llama2.c header (dim, hidden_dim, ...) is not mistaken for one.
    const int32_t llama2c[7] = {64, 172, 5, 8, 4, 512, 512};
    CHECK_FALSE(llm::looks_like_safetensors(reinterpret_cast<const uint8_t *>(llama2c), 28));
    CHECK_FALSE(llm::looks_like_safetensors(reinterpret_cast<const uint8_t *>("{}"), 2));
}

TEST_CASE("safetensors: broken files give a clear status and message", "[safetensors][bad]") {
    struct Case {
        const char *what;
        std::string bytes;
        llm_status status;
        const char *message;
    };
    const std::string data = data_bytes(32);
    const std::vector<Case> cases = {
        {"shorter than the length field", "abc", LLM_ERR_TRUNCATED, "8-byte"},
        {"header length past the end of the file", u64_le(1000) + "{}", LLM_ERR_TRUNCATED,
         "past the end"},
        {"absurd header length", u64_le(uint64_t(1) << 40) + "{}", LLM_ERR_FORMAT, "larger than"},
        {"malformed JSON", file_bytes(R"({"a":{"dtype":"F32",)", data), LLM_ERR_FORMAT,
         "invalid JSON"},
        {"JSON that is not an object", file_bytes("[1,2]", data), LLM_ERR_FORMAT,
         "not a JSON object"},
        {"duplicate tensor name",
         file_bytes(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                    R"("a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                    data),
         LLM_ERR_FORMAT, "duplicate JSON key \"a\""},
        {"entry not an object", with_entry("7"), LLM_ERR_FORMAT, "not a JSON object"},
        {"no data_offsets", with_entry(R"({"dtype":"F32","shape":[2]})"), LLM_ERR_FORMAT,
         "no \"data_offsets\""},
        {"unknown field", with_entry(R"({"dtype":"F32","shape":[2],"data_offsets":[24,32],"x":1})"),
         LLM_ERR_FORMAT, "unknown field \"x\""},
        {"unsupported dtype", with_entry(R"({"dtype":"I8","shape":[8],"data_offsets":[24,32]})"),
         LLM_ERR_UNSUPPORTED, "tensor \"b\" has dtype I8"},
        {"dtype not a string", with_entry(R"({"dtype":3,"shape":[8],"data_offsets":[24,32]})"),
         LLM_ERR_FORMAT, "dtype is not a string"},
        {"negative dimension", with_entry(R"({"dtype":"F32","shape":[-2],"data_offsets":[24,32]})"),
         LLM_ERR_FORMAT, "non-negative integer"},
        {"fractional dimension",
         with_entry(R"({"dtype":"F32","shape":[2.5],"data_offsets":[24,32]})"), LLM_ERR_FORMAT,
         "non-negative integer"},
        {"shape overflows",
         with_entry(R"({"dtype":"F32","shape":[4294967296,4294967296,16],"data_offsets":[24,32]})"),
         LLM_ERR_BAD_DIMENSIONS, "overflows"},
        {"too many dimensions",
         with_entry(R"({"dtype":"F32","shape":[1,1,1,1,1,1,1,1,2],"data_offsets":[24,32]})"),
         LLM_ERR_FORMAT, "dimensions"},
        {"offsets not a pair", with_entry(R"({"dtype":"F32","shape":[2],"data_offsets":[24]})"),
         LLM_ERR_FORMAT, "[begin, end]"},
        {"offsets end before they begin",
         with_entry(R"({"dtype":"F32","shape":[2],"data_offsets":[32,24]})"), LLM_ERR_FORMAT,
         "end before they begin"},
        {"offsets past the end of the file",
         with_entry(R"({"dtype":"F32","shape":[4],"data_offsets":[24,40]})"), LLM_ERR_TRUNCATED,
         "past the end"},
        {"offsets past the end by a huge amount",
         with_entry(R"({"dtype":"F32","shape":[2],"data_offsets":[18446744073709551608,0]})"),
         LLM_ERR_FORMAT, "end before they begin"},
        {"range size differs from shape",
         with_entry(R"({"dtype":"F32","shape":[3],"data_offsets":[24,32]})"), LLM_ERR_FORMAT,
         "needs 12"},
        {"overlapping ranges", with_entry(R"({"dtype":"F32","shape":[2],"data_offsets":[16,24]})"),
         LLM_ERR_FORMAT, "overlap"},
        {"__metadata__ not an object",
         file_bytes(R"({"__metadata__":5,"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
                    data),
         LLM_ERR_FORMAT, "__metadata__"},
        {"invalid UTF-8 in a name",
         file_bytes("{\"\xff\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", data),
         LLM_ERR_FORMAT, "invalid JSON"},
    };
    for (const Case &c : cases) {
        INFO(c.what);
        llm::Error e = parse_error(c.bytes);
        CHECK(e.status() == c.status);
        CHECK_THAT(e.what(), Catch::Contains(c.message));
        CHECK_THAT(e.what(), Catch::Contains("t.safetensors"));
    }
}

TEST_CASE("safetensors: random corruptions never crash", "[safetensors][bad]") {
    // Deterministic byte mutations of a valid file: every outcome must be
    // a parse or an llm::Error (ASan/UBSan builds check the rest).
    const std::string good = file_bytes(kGoodHeader, data_bytes(32));
    uint64_t state = 12345;
    auto next = [&] {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<uint32_t>(state >> 33);
    };
    const char alphabet[] = "{}[]\":,0123456789-.eE \\FBI";
    int errors = 0, parsed = 0;
    for (int round = 0; round < 3000; ++round) {
        std::string bytes = good;
        const int edits = 1 + static_cast<int>(next() % 3);
        for (int e = 0; e < edits; ++e) {
            size_t at = next() % (8 + std::strlen(kGoodHeader));
            bytes[at] = (next() % 2) ? alphabet[next() % (sizeof alphabet - 1)]
                                     : static_cast<char>(next() & 0xff);
        }
        try {
            parse(bytes);
            ++parsed;
        } catch (const llm::Error &) {
            ++errors;
        }
    }
    CHECK(errors > 2000); // most edits break something...
    CHECK(parsed > 0);    // ...but some stay valid (e.g. inside a name)
}

TEST_CASE("safetensors index: shards checked against weight_map", "[safetensors][bad]") {
    auto dir = temp_dir();
    write_file(
        dir + "/s1.safetensors",
        file_bytes(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", data_bytes(8)));
    write_file(
        dir + "/s2.safetensors",
        file_bytes(R"({"b":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}})", data_bytes(4)));
    auto index = [&](const std::string &weight_map) {
        write_file(dir + "/model.safetensors.index.json",
                   R"({"metadata":{"total_size":12},"weight_map":)" + weight_map + "}");
        return dir + "/model.safetensors.index.json";
    };
    SECTION("valid") {
        auto set = llm::open_safetensors_index(
            index(R"({"a":"s1.safetensors","b":"s2.safetensors"})"), true);
        CHECK(set.files.size() == 2);
        CHECK(set.tensors.size() == 2);
        CHECK(set.tensors.at("b").dtype == llm::DType::F16);
    }
    auto err = [&](const std::string &weight_map) {
        return error_of([&] { llm::open_safetensors_index(index(weight_map), true); });
    };
    SECTION("a listed tensor is not in its shard") {
        auto e = err(R"({"a":"s1.safetensors","b":"s2.safetensors","c":"s2.safetensors"})");
        CHECK(e.status() == LLM_ERR_FORMAT);
        CHECK_THAT(e.what(), Catch::Contains("\"c\" is not in s2.safetensors"));
    }
    SECTION("a shard holds a tensor the map does not list for it") {
        auto e = err(R"({"a":"s1.safetensors","b":"s1.safetensors"})");
        CHECK(e.status() == LLM_ERR_FORMAT);
    }
    SECTION("a shard name that leaves the folder") {
        auto e = err(R"({"a":"../s1.safetensors"})");
        CHECK(e.status() == LLM_ERR_FORMAT);
        CHECK_THAT(e.what(), Catch::Contains("not a plain file name"));
    }
    SECTION("a missing shard file") {
        auto e = err(R"({"a":"s1.safetensors","b":"s3.safetensors"})");
        CHECK(e.status() == LLM_ERR_NOT_FOUND);
        CHECK_THAT(e.what(), Catch::Contains("s3.safetensors"));
    }
    SECTION("no weight_map") {
        write_file(dir + "/model.safetensors.index.json", R"({"metadata":{}})");
        auto e = error_of(
            [&] { llm::open_safetensors_index(dir + "/model.safetensors.index.json", true); });
        CHECK(e.status() == LLM_ERR_FORMAT);
        CHECK_THAT(e.what(), Catch::Contains("weight_map"));
    }
}
