// Loading saved context states (llm_context_state_load) from hostile bytes.
// Input: one byte of options, then
//   mode 0: the rest is the state as it is;
//   mode 1: the rest edits a real state of stories260K: a little-endian u16
//           length to cut it to, then (u16 offset, u8 xor) triples;
//   mode 2: as 1, with the checksum then made right again, so the checks
//           behind it (fingerprint, counts, token ids, KV sizes) are reached.
// Whatever loads must leave a context that runs and saves again.
#include <cstring>
#include <vector>

#include "engine/context_state.h"
#include "fuzz_support.h"
#include "support/test_support.h"

namespace {

struct Fixture {
    llm_model *model = nullptr;
    std::vector<uint8_t> state; // 6 tokens with logits, fp32 KV
    llm_context *small = nullptr, *large = nullptr, *f16 = nullptr;
};

llm_context *new_context(llm_model *m, int32_t n_ctx, int32_t kv_type) {
    llm_context_params p = llm_context_default_params();
    p.n_ctx = n_ctx;
    p.n_threads = 1;
    p.kv_type = kv_type;
    llm_context *ctx = nullptr;
    if (llm_context_new(m, &p, &ctx) != LLM_OK) fuzz::violation("llm_context_new failed");
    return ctx;
}

Fixture &fixture() {
    static Fixture f = [] {
        Fixture x;
        x.model = fuzz::try_load(test::shared_path("models/stories260K.bin"),
                                 test::shared_path("models/tok512.bin").c_str());
        if (!x.model) fuzz::violation("cannot load stories260K");
        x.small = new_context(x.model, 4, LLM_KV_F32);
        x.large = new_context(x.model, 32, LLM_KV_F32);
        x.f16 = new_context(x.model, 32, LLM_KV_F16);
        const llm_token ids[] = {1, 400, 401, 402, 403, 404};
        if (llm_forward(x.large, ids, 6) != LLM_OK) fuzz::violation("forward failed");
        size_t n = 0;
        llm_context_state_size(x.large, &n);
        x.state.resize(n);
        if (llm_context_state_save(x.large, x.state.data(), n, &n) != LLM_OK)
            fuzz::violation("state save failed");
        return x;
    }();
    return f;
}

uint16_t u16(const uint8_t *p) {
    return static_cast<uint16_t>(p[0] | (p[1] << 8));
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    fixture();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    Fixture &f = fixture();
    const int mode = data[0] % 3;
    llm_context *ctx = (data[0] >> 2) % 3 == 0   ? f.small
                       : (data[0] >> 2) % 3 == 1 ? f.large
                                                 : f.f16;
    std::vector<uint8_t> bytes;
    if (mode == 0 || size < 3) {
        bytes.assign(data + 1, data + size);
    } else {
        bytes = f.state;
        for (size_t i = 3; i + 3 <= size; i += 3)
            if (!bytes.empty()) bytes[u16(data + i) % bytes.size()] ^= data[i + 2];
        const size_t cut = u16(data + 1);
        if (cut < bytes.size()) bytes.resize(cut);
        if (mode == 2 && bytes.size() >= 8) {
            const size_t body = bytes.size() - 8;
            const uint64_t h = llm::state_checksum(bytes.data(), body);
            for (int i = 0; i < 8; ++i)
                bytes[body + i] = static_cast<uint8_t>(h >> (8 * i));
        }
    }
    const llm_status s = llm_context_state_load(ctx, bytes.data(), bytes.size());
    fuzz::expect_handled(s, "llm_context_state_load");
    if (s == LLM_OK) {
        const int32_t pos = llm_context_position(ctx);
        if (pos < 0 || pos > llm_context_n_ctx(ctx)) fuzz::violation("position out of range");
        if (pos < llm_context_n_ctx(ctx)) {
            const llm_token t = 5;
            fuzz::expect_handled(llm_forward(ctx, &t, 1), "llm_forward after a load");
        }
        size_t n = 0;
        fuzz::expect_handled(llm_context_state_size(ctx, &n), "llm_context_state_size");
    }
    llm_context_reset(ctx);
    return 0;
}
