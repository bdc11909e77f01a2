// The GGUF loader on hostile files: the input is the .gguf. It is loaded
// through llm_model_load (whatever loads is then run), and through the
// internal stages too — the container parser with every array decoded, and
// the weights-only load — so that the mapping is reached even when the
// tokenizer refuses the vocabulary.
#include <string>
#include <string_view>

#include "common/error.h"
#include "fuzz_support.h"
#include "loaders/gguf_file.h"
#include "loaders/gguf_loader.h"
#include "loaders/loader.h"

namespace {

// An llm::Error is an answer; INTERNAL is a bug by definition.
template <typename F> void expect_status(const char *what, F f) {
    try {
        f();
    } catch (const llm::Error &e) {
        if (e.status() == LLM_ERR_INTERNAL) fuzz::violation(std::string(what) + ": " + e.what());
    }
}

void decode_arrays(const uint8_t *data, size_t size) {
    const llm::GgufFile f = llm::parse_gguf(data, size, "input.gguf");
    for (const auto &kv : f.kvs) {
        const std::string &key = kv.first;
        const llm::GgufValue &v = kv.second;
        if (v.type != llm::GgufType::ARRAY) continue;
        if (v.array_type == llm::GgufType::STRING)
            f.get_string_array(key);
        else if (v.array_type != llm::GgufType::ARRAY)
            expect_status("get_float_array", [&] { f.get_float_array(key); });
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const std::string model_path = fuzz::scratch_dir() + "/model.gguf";
    const std::string_view bytes(reinterpret_cast<const char *>(data), size);
    fuzz::put_file(model_path, &bytes);

    expect_status("parse_gguf", [&] { decode_arrays(data, size); });
    expect_status("load_gguf_weights", [&] {
        llm::LoadOptions o;
        llm::GgufVocab vocab;
        llm::load_gguf_weights(model_path, o, vocab);
    });

    llm_model_params p = llm_model_default_params();
    // The weight type and mmap come from the input's length so that every
    // in-memory layout is reached, deterministically for a given input.
    p.weight_type = static_cast<int32_t>(size % 5);
    p.use_mmap = (size / 5) % 2 == 0;
    llm_model *m = reinterpret_cast<llm_model *>(&p); // must be overwritten
    llm_status s = llm_model_load(model_path.c_str(), &p, &m);
    fuzz::expect_handled(s, "llm_model_load");
    if (s != LLM_OK) {
        if (m != nullptr) fuzz::violation("llm_model_load failed but left *out set");
        return 0;
    }
    fuzz::exercise_model(m);
    llm_model_free(m);
    return 0;
}
