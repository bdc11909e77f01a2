// Shared pieces of the libFuzzer targets: a per-process scratch folder on
// tmpfs, the shared models, and checks that turn a broken promise of llm.h
// into an abort that libFuzzer reports as a crash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "llm.h"

namespace fuzz {

// A folder private to this process, under $LLM_FUZZ_SCRATCH, else /dev/shm
// (tmpfs), else /tmp. Removed at normal exit.
// (test::shared_path and test::write_file from tests/support serve for the
// rest.)
const std::string &scratch_dir();
// Writes `bytes` to `path`, or removes `path` when `bytes` is null (a file
// the input leaves out).
void put_file(const std::string &path, const std::string_view *bytes);

// Prints the reason and aborts: libFuzzer saves the input as a crash.
[[noreturn]] void violation(const std::string &what);

// Every status is acceptable for hostile input except INTERNAL (a bug by
// the header's own definition) and codes the header does not define; a
// failure must also leave a message in llm_last_error().
void expect_handled(llm_status s, const char *call);

// Fuzz inputs that stand for several files are split at this marker.
constexpr std::string_view kPartMarker = "\n--8<--\n";
std::vector<std::string_view> split_parts(const uint8_t *data, size_t size);

// Loads a model; nullptr if this build cannot (e.g. a format not supported
// yet). Used at start-up for the fixed models the targets run on.
llm_model *try_load(const std::string &path, const char *tokenizer_path);

// After a hostile file loaded successfully: getters, tokenize, a few
// forward/sample/decode steps on a small context. Aborts on broken promises.
void exercise_model(llm_model *model);

// Decodes `ids` with llm_detokenize and with the streaming detokenizer
// (including too-small buffers and size queries) and checks that they
// agree, that the stream yields valid UTF-8 only, and that out-of-range ids
// are rejected.
void check_decode(const llm_model *model, const llm_token *ids, size_t n, int32_t flags);

// Strict UTF-8 (no overlongs, surrogates or code points above U+10FFFF).
bool valid_utf8(std::string_view s);

} // namespace fuzz
