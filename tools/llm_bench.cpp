// llm-bench: prefill and decode speed of a model (a file, or a named shape
// with random weights built in memory), next to the memory read bandwidth
// measured in the same run, so decode can be judged against the bus.
//
// It is our own tool and uses the engine's internal classes directly: the
// synthetic shapes exist only in memory, where the C API cannot reach.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <sys/resource.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define LLM_PROBE_X86_SIMD 1 // the probe's AVX2 and AVX-512 readers
#endif

#include "common/error.h"
#include "engine/batch_decode.h"
#include "engine/decode_scheduler.h"
#include "engine/transformer.h"
#include "grammar/gbnf_parser.h"
#include "grammar/json_schema_gbnf.h"
#include "grammar/token_trie.h"
#include "kernels/kernel_table.h"
#include "kernels/kernels.h"
#include "kernels/simd_level.h"
#include "kernels/thread_pool.h"
#include "loaders/loader.h"
#include "model/convert_weights.h"
#include "model/synthetic_model.h"
#include "sampler/sampler.h"

namespace {

struct Options {
    std::string shape, model_path, tokenizer;
    int32_t weight_type = -1; // LLM_WEIGHTS_*; -1: f32 for shapes, auto for files
    int threads = 0;
    bool kv_f16 = false;
    int prompt = 128, gen = 64, repeat = 3;
    int64_t probe_mb = 1024;
    uint64_t seed = 1;
    bool json = false;
    bool profile = false;
    int parallel = 0;        // > 0: decode that many sequences together (run_parallel)
    bool auto_batch = false; // --auto: with --parallel, N host threads (run_auto_batch)
    int arrive = 0;          // --arrive T: streams' latency while a T-token prompt arrives
    std::string grammar_file, schema_file; // constrained decode (run_grammar)
};

[[noreturn]] void usage() {
    std::fprintf(
        stderr,
        "usage: llm-bench (--shape NAME | MODEL) [options]\n"
        "  --shape NAME    random weights in memory: stories15M, stories42M, stories110M,\n"
        "                  qwen2.5-0.5b\n"
        "  MODEL           a llama2.c .bin checkpoint, a Hugging Face model folder or a .gguf "
        "file\n"
        "  -z PATH         tokenizer.bin for llama2.c checkpoints (default: beside the model)\n"
        "  --weights TYPE  auto, f32, bf16, f16, q8_0, q4_0, q4_1, q5_0, q5_1, q4_k, q5_k, q6_k\n"
        "                  (default: f32 for shapes, auto for files)\n"
        "  --threads N     compute threads (default: physical cores)\n"
        "  --kv TYPE       KV cache values: f32 (default) or f16\n"
        "  --prompt N      prompt tokens, run as one batched prefill (default 128)\n"
        "  --gen N         tokens generated one by one after it (default 64)\n"
        "  --repeat N      runs; medians are reported (default 3)\n"
        "  --probe-mb N    size of the bandwidth probe's buffer in MiB (default 1024)\n"
        "  --seed N        weights and prompt ids (default 1)\n"
        "  --json          one JSON object on stdout\n"
        "  --parallel N    N sequences, each prefilled with the prompt, decoded together\n"
        "                  (one batched step per token, as llm_decode_batch), against one\n"
        "                  decoded alone: aggregate and per-sequence tok/s\n"
        "  --auto          with --parallel N: N host threads, each decoding its own\n"
        "                  sequence by plain forward calls, gathered by the model's\n"
        "                  scheduler (as N threads calling llm_context_step), beside\n"
        "                  the explicit batch and one sequence alone\n"
        "  --arrive T      with --parallel N --auto: N-1 threads decode while a T-token\n"
        "                  prompt arrives on another: the streams' inter-token p50/p99\n"
        "                  during its prefill, with the prompt in chunks between their\n"
        "                  steps, as one block, and with gathering off\n"
        "  --grammar FILE  decode sampled under a GBNF grammar (MODEL with a tokenizer):\n"
        "                  the grammar's time per token (mask + advance) beside decode\n"
        "  --json-schema FILE  the same with a JSON Schema\n"
        "  --profile       one more run paired with the probe, its decode timed stage\n"
        "                  by stage (matrix products, attention) against the probe\n"
        "LLM_SIMD=scalar|avx2|avx2vnni|avx512|avx512vnni|amx|neon|neondot forces a lower\n"
        "SIMD level.\n");
    std::exit(2);
}

int32_t parse_weights(const std::string &s) {
    const int32_t type = llm_weight_type_from_name(s.c_str());
    if (type < 0) usage();
    return type;
}

int parse_int(const char *s, int min) {
    char *end = nullptr;
    long v = std::strtol(s, &end, 10);
    if (!*s || *end || v < min || v > (1 << 30)) usage();
    return static_cast<int>(v);
}

Options parse(int argc, char **argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : nullptr;
        auto value = [&] {
            if (!v) usage();
            ++i;
            return v;
        };
        if (a == "--json")
            o.json = true;
        else if (a == "--profile")
            o.profile = true;
        else if (a == "--shape")
            o.shape = value();
        else if (a == "-z")
            o.tokenizer = value();
        else if (a == "--weights")
            o.weight_type = parse_weights(value());
        else if (a == "--threads")
            o.threads = parse_int(value(), 0);
        else if (a == "--kv") {
            const std::string t = value();
            if (t != "f32" && t != "f16") usage();
            o.kv_f16 = t == "f16";
        } else if (a == "--prompt")
            o.prompt = parse_int(value(), 1);
        else if (a == "--gen")
            o.gen = parse_int(value(), 1);
        else if (a == "--repeat")
            o.repeat = parse_int(value(), 1);
        else if (a == "--probe-mb")
            o.probe_mb = parse_int(value(), 16);
        else if (a == "--parallel")
            o.parallel = std::min(parse_int(value(), 1), 1024); // contexts held at once
        else if (a == "--auto")
            o.auto_batch = true;
        else if (a == "--arrive")
            o.arrive = parse_int(value(), 1);
        else if (a == "--grammar")
            o.grammar_file = value();
        else if (a == "--json-schema")
            o.schema_file = value();
        else if (a == "--seed")
            o.seed = static_cast<uint64_t>(parse_int(value(), 0));
        else if (a[0] != '-' && o.model_path.empty())
            o.model_path = a;
        else
            usage();
    }
    if (o.shape.empty() == o.model_path.empty()) usage();
    if ((o.auto_batch || o.arrive) && o.parallel == 0) usage();
    if (o.arrive && !o.auto_batch) usage();
    if (o.threads == 0) o.threads = llm::ThreadPool::physical_cores();
    return o;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// CPU seconds this process has used (all threads).
double cpu_seconds() {
    rusage u;
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// A memory figure of this process from /proc/self/status: "VmHWM:" the most
// resident memory it has had, "VmRSS:" what is resident now.
int64_t status_bytes(const std::string &key) {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.compare(0, key.size(), key) == 0)
            return std::atoll(line.c_str() + key.size()) * 1024;
    return -1;
}

// The read-bandwidth probe: reads from a buffer far larger than the caches,
// in blocks of sequential streams read a 64-byte line at a time, each
// stream prefetched kPrefetchAhead bytes ahead. That is how the
// matrix-vector kernels read weights (for_row_streams in
// src/kernels/simd_kernels.inc). Every read is done with 4 and with 8
// streams, the two taking turns going first, and the pattern that read
// faster over the whole run counts: the efficiency is measured against the
// best plain reader we found on the machine, not against a pattern that
// suits the kernels.
//
// Why over the run and not per read: the faster of the two reads after each
// token picks the luckier of two noisy samples, which no fixed reader gets
// (nor the decode, timed once per token). On the Zen 5 VM, 12 runs (both
// shapes; f32, bf16, Q8_0; 1 and 2 threads; 32 tokens each): with one
// thread 4 streams won every read, so the two ways agree; with two threads
// the per-read minimum summed to 0.8-8.5% less time than 4 streams alone,
// though 8 streams took 4-25% longer than 4 over each of those runs.
//
// Why these choices (AMD EPYC Zen 5 VM, one thread, one process, 1 GiB):
// a line taken as two 32-byte loads read at 37-40 GB/s with 4 streams and
// 30-33 with 8; the same line as four 16-byte loads (SSE2, this probe's
// reader before) at 25-29, below what the kernels themselves read. A line
// is now taken with the widest loads the CPU has: on a 2-core Emerald
// Rapids VM one 64-byte load per line read 5-10% faster than two 32-byte
// ones (1 GiB, 8 streams, one thread, the two readers taking turns: medians
// 12.8 vs 11.8 GB/s over 20 rounds), and the fp32 matrix-vector kernel,
// which takes a line with one 64-byte load, read faster than the 32-byte
// reader too.
//
// The probe is paired with decoding (see run_once): after each decoded
// token it reads as many bytes as the token read weights, with the same
// thread pool, so both are timed under the same conditions. This VM's
// bandwidth drifts by a factor of up to two over seconds to minutes; a
// probe taken apart from the decoding, even right after each run, landed on
// other levels than the run had (the same binary's efficiency came out at
// 73% and at 94% in consecutive runs).
class BandwidthProbe {
  public:
    explicit BandwidthProbe(int64_t mib)
        : buf_(static_cast<size_t>(mib << 20) / 8),
          loads_(llm::simd_level_supported(llm::SimdLevel::Avx512) ? Loads::Avx512
                 : llm::simd_level_supported(llm::SimdLevel::Avx2) ? Loads::Avx2
                                                                   : Loads::Scalar) {
        // Distinct contents per page: a hypervisor may back identical
        // pages by one physical page, which would then be read from cache.
        uint64_t state = 0x9e3779b97f4a7c15u;
        for (uint64_t &v : buf_) {
            state ^= state << 13, state ^= state >> 7, state ^= state << 17;
            v = state;
        }
    }

    static constexpr int kPatterns = 2;
    static constexpr int kStreams[kPatterns] = {4, 8};

    // Seconds to read `bytes` (rounded to whole blocks) with 4 and with 8
    // streams, into seconds[0] and seconds[1]. Each read continues where the
    // last one ended, wrapping around the buffer, so it never finds its
    // bytes in the caches.
    void read(int64_t bytes, llm::ThreadPool &pool, double seconds[kPatterns]) {
        // One equal part per thread, not the pool's dynamic chunks: those
        // let one thread finish up to a chunk after the other, a stall the
        // decode has and the probe, as the ceiling, should not.
        const int64_t parts = pool.size();
        const int64_t per_part = std::max<int64_t>(1, (bytes / parts + kBlock - 1) / kBlock);
        const int64_t blocks = parts * per_part;
        const int64_t block =
            std::max<int64_t>(kLine * 8, bytes / blocks / (kLine * 8) * kLine * 8);
        const int64_t n_buf = static_cast<int64_t>(buf_.size()) * 8 / block; // blocks in buf_
        first_pattern_ ^= 1;
        for (int k = 0; k < kPatterns; ++k) {
            const int pattern = k ^ first_pattern_;
            const int streams = kStreams[pattern];
            const int64_t first = next_;
            next_ = (next_ + blocks) % n_buf;
            const auto t0 = std::chrono::steady_clock::now();
            pool.parallel_for(parts, 1, [&](int64_t begin, int64_t end, int thread) {
                const auto *base = reinterpret_cast<const uint8_t *>(buf_.data());
                uint64_t sum = 0;
                for (int64_t i = begin * per_part; i < end * per_part; ++i) {
                    const uint8_t *p = base + (first + i) % n_buf * block;
                    sum += streams == 4 ? read_block<4>(p, block) : read_block<8>(p, block);
                }
                sink_[thread % kSinks] += sum;
            });
            seconds[pattern] = seconds_since(t0) * static_cast<double>(bytes) /
                               static_cast<double>(blocks * block);
        }
    }

  private:
    static constexpr int64_t kPrefetchAhead = 1024;
    static constexpr int64_t kLine = 64;
    static constexpr int64_t kBlock = 16 << 20;
    static constexpr int kSinks = 64;

    // Sums n bytes from p (n a multiple of S lines), as S streams at once.
    template <int S> uint64_t read_block(const uint8_t *p, int64_t n) const {
#if defined(LLM_PROBE_X86_SIMD)
        if (loads_ == Loads::Avx512) return read_block_avx512<S>(p, n);
        if (loads_ == Loads::Avx2) return read_block_avx2<S>(p, n);
#endif
        const int64_t part = n / S; // bytes per stream
        uint64_t acc[S] = {};
        for (int64_t i = 0; i < part; i += kLine) // one line per stream
#pragma GCC unroll 8
            for (int s = 0; s < S; ++s) {
                const uint64_t *q = reinterpret_cast<const uint64_t *>(p + s * part + i);
                __builtin_prefetch(reinterpret_cast<const char *>(q) + kPrefetchAhead);
                acc[s] += q[0] + q[1] + q[2] + q[3] + q[4] + q[5] + q[6] + q[7];
            }
        uint64_t total = 0;
        for (uint64_t a : acc)
            total += a;
        return total;
    }

#if defined(LLM_PROBE_X86_SIMD)
    template <int S>
    __attribute__((target("avx2"))) static uint64_t read_block_avx2(const uint8_t *p, int64_t n) {
        const int64_t part = n / S;
        __m256i acc[S];
        for (__m256i &a : acc)
            a = _mm256_setzero_si256();
        for (int64_t i = 0; i < part; i += kLine)
#pragma GCC unroll 8
            for (int s = 0; s < S; ++s) {
                const uint8_t *q = p + s * part + i;
                _mm_prefetch(reinterpret_cast<const char *>(q) + kPrefetchAhead, _MM_HINT_T0);
                const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(q));
                const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(q + 32));
                acc[s] = _mm256_add_epi64(acc[s], _mm256_add_epi64(a, b));
            }
        __m256i total = acc[0];
        for (int s = 1; s < S; ++s)
            total = _mm256_add_epi64(total, acc[s]);
        return static_cast<uint64_t>(_mm256_extract_epi64(total, 0));
    }

    template <int S>
    __attribute__((target("avx512f"))) static uint64_t read_block_avx512(const uint8_t *p,
                                                                         int64_t n) {
        const int64_t part = n / S;
        __m512i acc[S];
        for (__m512i &a : acc)
            a = _mm512_setzero_si512();
        for (int64_t i = 0; i < part; i += kLine)
#pragma GCC unroll 8
            for (int s = 0; s < S; ++s) {
                const uint8_t *q = p + s * part + i;
                _mm_prefetch(reinterpret_cast<const char *>(q) + kPrefetchAhead, _MM_HINT_T0);
                acc[s] = _mm512_add_epi64(acc[s], _mm512_loadu_si512(q));
            }
        __m512i total = acc[0];
        for (int s = 1; s < S; ++s)
            total = _mm512_add_epi64(total, acc[s]);
        // One lane is enough to keep the loads (GCC's _mm512_reduce_add_epi64
        // adds signed 64-bit lanes, which UBSan flags when they overflow).
        return static_cast<uint64_t>(_mm_cvtsi128_si64(_mm512_castsi512_si128(total)));
    }
#endif

    std::vector<uint64_t> buf_;
    enum class Loads { Scalar, Avx2, Avx512 }; // how a line is loaded
    Loads loads_;
    int64_t next_ = 0;      // the block the next read starts at
    int first_pattern_ = 0; // which pattern went first last time
    // The sums are the point of the reads: stored where the compiler must
    // assume they are read.
    volatile uint64_t sink_[kSinks] = {};
};

// FLOPs of a prefill of n tokens: 2 per weight per token in the layers,
// the attention products over the causal prefix, and the logits of the
// last token only.
double prefill_flops(const llm::ModelConfig &c, int64_t n) {
    const double layer =
        2.0 * c.q_dim() * c.dim + 2.0 * c.kv_dim() * c.dim + 3.0 * c.hidden_dim * c.dim;
    const double attention = 4.0 * c.q_dim() * (static_cast<double>(n) * (n + 1) / 2);
    return c.n_layers * (2.0 * layer * n + attention) + 2.0 * c.vocab_size * c.dim;
}

// Positions a decoded token's attention reads keys and values of, on
// average over the run's decoded tokens: token i (0-based) sits at position
// prompt + i and reads prompt + i + 1 of them in every layer. The efficiency
// counts weights only, as the issue defines it; at 128 + 32 positions the
// fp32 KV reads add about 5% to a stories110M bf16 token's bytes and 9% to
// a Q8_0 one's.
double mean_attended_positions(int prompt, int gen) {
    return prompt + (gen + 1) / 2.0; // the mean of prompt + i + 1
}

const char *type_name(const llm::Model &m) {
    return llm::dtype_name(m.weights.layers[0].wq.type);
}

// One line of --profile: a stage's share of a decoded token, the bytes it
// read per second (weights, or keys and values for attention) and that
// rate's share of the probe's bandwidth `bw` (bytes per second).
// "other" is the token's time outside the stages (norms, RoPE, the KV
// store, residual adds, the next token's argmax), with no bytes.
struct ProfileRow {
    std::string stage;
    double calls_per_token, us_per_token, share, gb_s, of_probe; // gb_s < 0: no bytes
};

std::vector<ProfileRow> profile_rows(const llm::ForwardProfile &p, int gen, double tok_s,
                                     double bw) {
    std::vector<ProfileRow> rows;
    const double token_us = 1e6 / tok_s;
    double staged_us = 0;
    for (int s = 0; s < llm::ForwardProfile::kStages; ++s) {
        if (p.calls[s] == 0) continue;
        const double us = p.seconds[s] * 1e6 / gen;
        staged_us += us;
        const double rate = p.seconds[s] > 0 ? p.bytes[s] / p.seconds[s] : -1;
        rows.push_back({llm::ForwardProfile::name(s), static_cast<double>(p.calls[s]) / gen, us,
                        us / token_us, rate < 0 ? -1 : rate / 1e9, rate / bw});
    }
    const double other = std::max(0.0, token_us - staged_us);
    rows.push_back({"other", 0, other, other / token_us, -1, -1});
    return rows;
}

struct Result {
    double prefill_tok_s, decode_tok_s;
    // With a probe: its reads paired with the tokens, in all, with the
    // pattern that was faster over the run, and that pattern's streams.
    double probe_seconds = 0;
    int probe_streams = 0;
};

// A prefill of the prompt, then `gen` tokens decoded one by one. With a
// probe, each decoded token is followed by a read of weight_bytes from it
// (not counted in the decode time). With a profile, the decoded tokens'
// stages are timed into it.
Result run_once(llm::Transformer &tf, const std::vector<int32_t> &prompt, int gen, int32_t vocab,
                std::vector<float> &logits, BandwidthProbe *probe = nullptr,
                int64_t weight_bytes = 0, llm::ForwardProfile *profile = nullptr) {
    const auto t0 = std::chrono::steady_clock::now();
    tf.forward(prompt.data(), static_cast<int64_t>(prompt.size()), 0, logits.data(), nullptr);
    const double prefill = seconds_since(t0);
    tf.set_profile(profile);
    double decode = 0, probe_seconds[BandwidthProbe::kPatterns] = {};
    int32_t pos = static_cast<int32_t>(prompt.size());
    for (int i = 0; i < gen; ++i) {
        const auto t = std::chrono::steady_clock::now();
        const int32_t token = llm::argmax(logits.data(), vocab);
        tf.forward(&token, 1, pos++, logits.data(), nullptr);
        decode += seconds_since(t);
        if (probe) {
            double read[BandwidthProbe::kPatterns];
            probe->read(weight_bytes, *tf.pool(), read);
            for (int k = 0; k < BandwidthProbe::kPatterns; ++k)
                probe_seconds[k] += read[k];
        }
    }
    tf.set_profile(nullptr);
    Result r{static_cast<double>(prompt.size()) / prefill, gen / decode};
    if (probe) {
        const int best = probe_seconds[1] < probe_seconds[0] ? 1 : 0;
        r.probe_seconds = probe_seconds[best];
        r.probe_streams = BandwidthProbe::kStreams[best];
    }
    return r;
}

// Tokens per second of wall time and of the process's CPU time: on a machine
// shared with other work the second says more about a step's cost (it counts
// the threads' memory stalls, not their waits for a core).
struct Speed {
    double wall, cpu;
};

// A mode's speeds over the repeats, and their medians.
struct Speeds {
    std::vector<double> wall, cpu;
    void add(const Speed &s) {
        wall.push_back(s.wall);
        cpu.push_back(s.cpu);
    }
    Speed medians() const { return Speed{median(wall), median(cpu)}; }
};

// The sequences the --parallel modes decode: n transformers of one model,
// each with its own cache of prompt + gen positions and its own logits, all
// after the same prompt. Sequence 0 gets o.threads compute threads, the
// others `others_threads` (1 where only sequence 0's pool computes: a
// BatchDecoder step runs on its first sequence's pool).
class Sequences {
  public:
    Sequences(const Options &o, const llm::Model &model, const std::vector<int32_t> &prompt, int n,
              int others_threads)
        : prompt_(prompt), vocab_(model.config.vocab_size), exact_(llm::batch_exact_from_env()) {
        const llm::DType kv = o.kv_f16 ? llm::DType::F16 : llm::DType::F32;
        for (int i = 0; i < n; ++i)
            seqs_.push_back(std::make_unique<llm::Transformer>(
                model, o.prompt + o.gen, i == 0 ? o.threads : others_threads, kv));
        logits_.assign(static_cast<size_t>(n), std::vector<float>(static_cast<size_t>(vocab_)));
    }

    // Whether decode_together takes the exact path (read once, at construction).
    bool exact() const { return exact_; }

    int size() const { return static_cast<int>(seqs_.size()); }

    // The prompt into the first `count` sequences' caches.
    void prefill(int count) {
        for (int i = 0; i < count; ++i)
            seq(i).forward(prompt_.data(), prompt_len(), 0, logits(i), nullptr);
    }

    // Sequence 0 prefilled, then `gen` tokens decoded by itself (timed).
    Speed decode_alone(int gen) {
        prefill(1);
        const double cpu0 = cpu_seconds();
        const auto t0 = std::chrono::steady_clock::now();
        for (int k = 0; k < gen; ++k) {
            const int32_t token = next_token(0);
            seq(0).forward(&token, 1, prompt_len() + k, logits(0), nullptr);
        }
        return Speed{gen / seconds_since(t0), gen / (cpu_seconds() - cpu0)};
    }

    // Every sequence prefilled, then `gen` BatchDecoder steps (what
    // llm_decode_batch runs), each advancing all of them one token (timed).
    Speed decode_together(int gen) {
        const int n = size();
        prefill(n);
        std::vector<llm::BatchSeq> step(static_cast<size_t>(n));
        const double cpu0 = cpu_seconds();
        const auto t0 = std::chrono::steady_clock::now();
        for (int k = 0; k < gen; ++k) {
            for (int i = 0; i < n; ++i) {
                llm::BatchSeq &s = step[static_cast<size_t>(i)];
                s.transformer = &seq(i);
                s.logits = logits(i);
                s.token = next_token(i);
                s.pos = prompt_len() + k;
                s.cancel = nullptr;
            }
            llm::BatchDecoder::decode(step.data(), n, exact_);
        }
        const double tokens = static_cast<double>(n) * gen;
        return Speed{tokens / seconds_since(t0), tokens / (cpu_seconds() - cpu0)};
    }

    // Sequence i's next token at `pos` by a plain single-token forward call
    // through the scheduler, as a thread calling llm_context_step runs it.
    // Threads may call it at once for distinct i.
    void step(llm::DecodeScheduler &scheduler, int i, int32_t pos) {
        const int32_t token = next_token(i);
        llm::DecodeRequest r;
        r.transformer = &seq(i);
        r.tokens = &token;
        r.n = 1;
        r.pos0 = pos;
        r.logits = logits(i);
        scheduler.forward(r);
    }

  private:
    llm::Transformer &seq(int i) { return *seqs_[static_cast<size_t>(i)]; }
    float *logits(int i) { return logits_[static_cast<size_t>(i)].data(); }
    int32_t next_token(int i) { return llm::argmax(logits(i), vocab_); }
    int32_t prompt_len() const { return static_cast<int32_t>(prompt_.size()); }

    const std::vector<int32_t> &prompt_;
    const int32_t vocab_;
    const bool exact_; // LLM_BATCH_EXACT=1: batched steps on the exact path
    std::vector<std::unique_ptr<llm::Transformer>> seqs_;
    std::vector<std::vector<float>> logits_;
};

// The start of the --parallel modes' JSON object, up to their own keys:
// the run, one sequence's decode alone (tok/s) and N.
void print_parallel_json_head(const Options &o, const llm::Model &model, const std::string &name,
                              double alone) {
    std::printf("{\"model\": \"%s\", \"weight_type\": \"%s\", \"kv_type\": \"%s\", "
                "\"simd\": \"%s\", \"threads\": %d, \"prompt_tokens\": %d, "
                "\"gen_tokens\": %d, \"repeat\": %d, \"decode_tok_s\": %.3f, "
                "\"parallel\": %d, ",
                name.c_str(), type_name(model), o.kv_f16 ? "f16" : "f32",
                llm::simd_level_name(llm::kernel_table().level), o.threads, o.prompt, o.gen,
                o.repeat, alone, o.parallel);
}

// --parallel: the decode of one sequence alone, then of o.parallel sequences
// stepped together through BatchDecoder (what llm_decode_batch runs), each
// sequence on its own cache after the same prompt; medians of the repeats.
int run_parallel(const Options &o, const llm::Model &model, const std::string &name,
                 const std::vector<int32_t> &prompt) {
    const int n = o.parallel;
    Sequences seqs(o, model, prompt, n, 1);
    seqs.decode_alone(std::min(o.gen, 2)); // warm-up: pages in the scratch, wakes the clocks
    seqs.decode_together(std::min(o.gen, 2));
    Speeds single, aggregate;
    for (int r = 0; r < o.repeat; ++r) {
        single.add(seqs.decode_alone(o.gen));
        aggregate.add(seqs.decode_together(o.gen));
    }
    const Speed one = single.medians(), all = aggregate.medians();
    // Stepped together, every sequence advances one token per step.
    const double per_seq = all.wall / n, ratio = all.wall / (n * one.wall);
    const double cpu_ratio = all.cpu / (n * one.cpu);
    if (o.json) {
        print_parallel_json_head(o, model, name, one.wall);
        std::printf("\"aggregate_decode_tok_s\": %.3f, "
                    "\"per_sequence_decode_tok_s\": %.3f, \"aggregate_over_n_single\": %.3f, "
                    "\"decode_tok_per_cpu_s\": %.3f, \"aggregate_decode_tok_per_cpu_s\": %.3f, "
                    "\"aggregate_over_n_single_cpu\": %.3f, \"exact\": %s}\n",
                    all.wall, per_seq, ratio, one.cpu, all.cpu, cpu_ratio,
                    seqs.exact() ? "true" : "false");
        return 0;
    }
    std::printf("model        %s%s\n", name.c_str(), o.shape.empty() ? "" : " (random weights)");
    std::printf("weights      %s; KV cache %s; simd %s, %d threads\n", type_name(model),
                o.kv_f16 ? "f16" : "f32", llm::simd_level_name(llm::kernel_table().level),
                o.threads);
    std::printf("runs         %d x (prompt %d + gen %d tokens), medians\n", o.repeat, o.prompt,
                o.gen);
    std::printf("alone        %.2f tok/s (one sequence decoded by itself)\n", one.wall);
    std::printf("parallel %-3d %.2f tok/s in all, %.2f tok/s per sequence (%.2f x %d x alone)\n", n,
                all.wall, per_seq, ratio, n);
    std::printf("per CPU s    alone %.2f tok, parallel %.2f tok in all (%.2f x %d x alone)\n",
                one.cpu, all.cpu, cpu_ratio, n);
    return 0;
}

// Runs body(i) on n threads that start together; returns the wall seconds
// from that start until the last is done, and sets *cpu to the process's CPU
// seconds over the same span.
template <typename Fn> double on_threads(int n, Fn body, double *cpu) {
    std::mutex mu;
    std::condition_variable cv;
    int ready = 0;
    bool go = false;
    std::vector<std::thread> threads;
    for (int i = 0; i < n; ++i)
        threads.emplace_back([&, i] {
            {
                std::unique_lock<std::mutex> lock(mu);
                ++ready;
                cv.notify_all();
                cv.wait(lock, [&] { return go; });
            }
            body(i);
        });
    {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return ready == n; });
    }
    const double cpu0 = cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    {
        std::lock_guard<std::mutex> lock(mu);
        go = true;
    }
    cv.notify_all();
    for (auto &t : threads)
        t.join();
    const double wall = seconds_since(t0);
    *cpu = cpu_seconds() - cpu0;
    return wall;
}

// --parallel N --auto: N host threads, each decoding its own sequence (its
// own transformer with o.threads compute threads, after the same prompt) by
// plain single-token forward calls through one DecodeScheduler: what N
// threads calling llm_context_step on N contexts of one model run. Beside it
// the same N sequences stepped by the explicit batch (BatchDecoder, as
// llm_decode_batch) and one sequence alone; medians of the repeats.
int run_auto_batch(const Options &o, const llm::Model &model, const std::string &name,
                   const std::vector<int32_t> &prompt) {
    const int n = o.parallel;
    Sequences seqs(o, model, prompt, n, o.threads);
    llm::DecodeScheduler scheduler(true);
    auto threads = [&](int gen) {
        seqs.prefill(n);
        double cpu = 0;
        const double wall = on_threads(
            n,
            [&](int i) {
                for (int k = 0; k < gen; ++k)
                    seqs.step(scheduler, i, o.prompt + k);
            },
            &cpu);
        const double tokens = static_cast<double>(n) * gen;
        return Speed{tokens / wall, tokens / cpu};
    };
    seqs.decode_alone(std::min(o.gen, 2)); // warm-up: pages in the scratch, wakes the clocks
    seqs.decode_together(std::min(o.gen, 2));
    threads(std::min(o.gen, 2));
    Speeds alone_runs, batch_runs, thread_runs;
    for (int r = 0; r < o.repeat; ++r) {
        alone_runs.add(seqs.decode_alone(o.gen));
        batch_runs.add(seqs.decode_together(o.gen));
        thread_runs.add(threads(o.gen));
    }
    const Speed one = alone_runs.medians(), batch = batch_runs.medians(),
                thr = thread_runs.medians();
    const double s1 = one.wall, sb = batch.wall, st = thr.wall;
    if (o.json) {
        print_parallel_json_head(o, model, name, s1);
        std::printf("\"mode\": \"threads\", \"aggregate_decode_tok_s\": %.3f, "
                    "\"per_sequence_decode_tok_s\": %.3f, "
                    "\"explicit_batch_aggregate_decode_tok_s\": %.3f, "
                    "\"decode_tok_per_cpu_s\": %.3f, \"aggregate_decode_tok_per_cpu_s\": %.3f, "
                    "\"explicit_batch_aggregate_decode_tok_per_cpu_s\": %.3f}\n",
                    st, st / n, sb, one.cpu, thr.cpu, batch.cpu);
        return 0;
    }
    std::printf("model        %s%s\n", name.c_str(), o.shape.empty() ? "" : " (random weights)");
    std::printf("weights      %s; KV cache %s; simd %s, %d threads per sequence\n",
                type_name(model), o.kv_f16 ? "f16" : "f32",
                llm::simd_level_name(llm::kernel_table().level), o.threads);
    std::printf("runs         %d x (prompt %d + gen %d tokens), medians\n", o.repeat, o.prompt,
                o.gen);
    std::printf("alone        %.2f tok/s (one sequence decoded by itself)\n", s1);
    std::printf("explicit %-3d %.2f tok/s in all (%.2f x %d x alone), %.2f tok per CPU s\n", n, sb,
                sb / (n * s1), n, batch.cpu);
    std::printf("threads  %-3d %.2f tok/s in all (%.2f x %d x alone, %.2f x explicit), %.2f tok "
                "per CPU s\n",
                n, st, st / (n * s1), n, st / sb, thr.cpu);
    const llm::DecodeScheduler::Stats stats = scheduler.stats();
    std::printf("             the scheduler gathered %.2f sequences per step on average\n",
                static_cast<double>(stats.rows) /
                    static_cast<double>(std::max<int64_t>(1, stats.steps)));
    return 0;
}

// p-th quantile (0..1) of v, nearest rank; 0 for none.
double quantile(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const size_t k = static_cast<size_t>(std::ceil(p * static_cast<double>(v.size())));
    return v[std::min(v.size() - 1, k > 0 ? k - 1 : 0)];
}

// --parallel N --auto --arrive T: N-1 streams decode (a thread each, through
// one scheduler) while a T-token prompt arrives on another sequence. The
// streams' inter-token times that overlap its prefill, p50 / p99 over all
// streams, in three modes: the prompt in chunks between the streams' steps,
// the prompt as one block, and gathering off (every thread computes alone,
// all at once).
int run_arrival(const Options &o, const llm::Model &model, const std::string &name,
                const std::vector<int32_t> &prompt) {
    const llm::ModelConfig &c = model.config;
    const int streams = std::max(1, o.parallel - 1);
    Sequences seqs(o, model, prompt, streams, o.threads);
    llm::Transformer arriving(model, o.arrive, o.threads,
                              o.kv_f16 ? llm::DType::F16 : llm::DType::F32);
    std::vector<int32_t> long_prompt(static_cast<size_t>(o.arrive));
    llm::Rng rng(o.seed + 1);
    for (int32_t &t : long_prompt)
        t = static_cast<int32_t>(rng.next_u32() % static_cast<uint32_t>(c.vocab_size));
    std::vector<float> arriving_logits(static_cast<size_t>(c.vocab_size));
    struct Mode {
        const char *name;
        bool enabled, chunked;
    };
    const Mode modes[] = {
        {"chunked", true, true}, {"one block", true, false}, {"off", false, true}};
    std::printf("model        %s%s\n", name.c_str(), o.shape.empty() ? "" : " (random weights)");
    std::printf("weights      %s; simd %s, %d threads per sequence\n", type_name(model),
                llm::simd_level_name(llm::kernel_table().level), o.threads);
    std::printf("%d streams decoding (prompt %d) while a %d-token prompt arrives; inter-token "
                "ms of the streams\n",
                streams, o.prompt, o.arrive);
    std::printf("%-10s %10s %10s %8s %8s %8s %10s\n", "prompt", "prefill s", "tokens in", "p50",
                "p99", "max", "before p50");
    for (const Mode &mode : modes) {
        llm::DecodeScheduler scheduler(mode.enabled, mode.chunked);
        seqs.prefill(streams);
        std::atomic<bool> stop{false};
        std::atomic<int> warm{0};
        std::vector<std::vector<double>> stamps(static_cast<size_t>(streams));
        const auto t0 = std::chrono::steady_clock::now();
        std::vector<std::thread> threads;
        for (int i = 0; i < streams; ++i)
            threads.emplace_back([&, i] {
                for (int k = 0; !stop.load(); ++k) {
                    // The position wraps: the cache holds prompt + gen.
                    seqs.step(scheduler, i, o.prompt + k % o.gen);
                    stamps[static_cast<size_t>(i)].push_back(seconds_since(t0));
                    if (k == 4) ++warm;
                }
            });
        while (warm.load() < streams)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        const double arrive = seconds_since(t0);
        llm::DecodeRequest big;
        big.transformer = &arriving;
        big.tokens = long_prompt.data();
        big.n = o.arrive;
        big.logits = arriving_logits.data();
        scheduler.forward(big);
        const double done = seconds_since(t0);
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        stop = true;
        for (auto &t : threads)
            t.join();
        std::vector<double> during, before;
        int64_t made = 0;
        for (const auto &s : stamps)
            for (size_t j = 1; j < s.size(); ++j) {
                const double gap = 1e3 * (s[j] - s[j - 1]);
                if (s[j] > arrive && s[j - 1] < done) during.push_back(gap);
                if (s[j] <= arrive) before.push_back(gap);
                made += s[j] > arrive && s[j] <= done;
            }
        std::printf("%-10s %10.2f %10" PRId64 " %8.1f %8.1f %8.1f %10.1f\n", mode.name,
                    done - arrive, made, quantile(during, 0.5), quantile(during, 0.99),
                    quantile(during, 1.0), quantile(before, 0.5));
    }
    return 0;
}

// --grammar / --json-schema: `gen` tokens sampled (temperature 1) under the
// grammar after the prompt, repeated; a grammar that completes starts over.
// Decode (forward) and constraint (mask + advance) time are kept apart.
int run_grammar(const Options &o, const llm::Model &model, const std::string &name,
                const std::vector<int32_t> &prompt) {
    if (!model.tokenizer) {
        std::fprintf(stderr, "llm-bench: --grammar needs a model with a tokenizer\n");
        return 2;
    }
    const bool schema = o.grammar_file.empty();
    std::ifstream in(schema ? o.schema_file : o.grammar_file, std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "llm-bench: cannot read the grammar file\n");
        return 2;
    }
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (schema) text = llm::json_schema_to_gbnf(text);
    const auto grammar = llm::grammar::parse_gbnf(text);
    const int32_t vocab = model.config.vocab_size;
    const auto t_trie = std::chrono::steady_clock::now();
    const auto trie = std::make_shared<llm::grammar::TokenTrie>(
        llm::grammar::TokenTrie::token_bytes(*model.tokenizer, vocab, model.eog_tokens),
        model.eog_tokens);
    const double trie_ms = 1e3 * seconds_since(t_trie);
    llm::Transformer tf(model, o.prompt + o.gen, o.threads,
                        o.kv_f16 ? llm::DType::F16 : llm::DType::F32);
    std::vector<float> logits(static_cast<size_t>(vocab));
    std::vector<double> decode_us, constraint_us;
    for (int r = 0; r < o.repeat; ++r) {
        llm::SamplerConfig sc;
        sc.seed = o.seed + static_cast<uint64_t>(r);
        llm::Sampler sampler(sc);
        sampler.set_grammar(grammar, trie);
        tf.forward(prompt.data(), static_cast<int64_t>(prompt.size()), 0, logits.data(), nullptr);
        std::vector<int32_t> history(prompt);
        double decode = 0;
        for (int i = 0; i < o.gen; ++i) {
            int32_t t = sampler.sample(logits.data(), vocab, history.data(), history.size());
            if (trie->is_eog(t)) {
                sampler.set_grammar(grammar, trie);
                t = sampler.sample(logits.data(), vocab, history.data(), history.size() + 1);
            }
            history.push_back(t);
            const auto t0 = std::chrono::steady_clock::now();
            tf.forward(&t, 1, static_cast<int32_t>(history.size()) - 1, logits.data(), nullptr);
            decode += seconds_since(t0);
        }
        decode_us.push_back(1e6 * decode / o.gen);
        constraint_us.push_back(1e6 * sampler.constraint_seconds() / o.gen);
    }
    std::printf("model        %s\n", name.c_str());
    std::printf("grammar      %s (%zu rules compiled), trie over %d tokens built in %.1f ms\n",
                schema ? o.schema_file.c_str() : o.grammar_file.c_str(), grammar->rules.size(),
                vocab, trie_ms);
    std::printf("runs         %d x (prompt %d + gen %d tokens), medians\n", o.repeat, o.prompt,
                o.gen);
    std::printf("decode       %.1f us/token\n", median(decode_us));
    std::printf("constraint   %.1f us/token (mask + advance)\n", median(constraint_us));
    return 0;
}

int run(const Options &o) {
    // What the process holds before the model: the program, the C++ runtime
    // and the library's code. A host already has its own.
    const int64_t base_rss = status_bytes("VmRSS:");
    std::unique_ptr<llm::Model> model;
    std::string name = o.shape;
    if (!o.shape.empty()) {
        llm::ModelConfig config;
        if (!llm::synthetic_config(o.shape, config)) {
            std::fprintf(stderr, "llm-bench: unknown shape %s\n", o.shape.c_str());
            return 2;
        }
        const int32_t wt = o.weight_type < 0 ? LLM_WEIGHTS_F32 : o.weight_type;
        const llm::DType type = wt == LLM_WEIGHTS_AUTO ? llm::DType::F32 : llm::weight_dtype(wt);
        model = llm::make_synthetic_model(config, type, o.seed);
    } else {
        llm::LoadOptions lo;
        lo.tokenizer_path = o.tokenizer;
        lo.weight_type = o.weight_type < 0 ? LLM_WEIGHTS_AUTO : o.weight_type;
        model = llm::load_model(o.model_path, lo);
        name = o.model_path;
    }
    const llm::ModelConfig &c = model->config;
    const int32_t n_ctx = o.prompt + o.gen;
    if (n_ctx > c.max_seq_len) {
        std::fprintf(stderr, "llm-bench: prompt + gen = %d exceeds the model's %d positions\n",
                     n_ctx, c.max_seq_len);
        return 2;
    }

    std::vector<int32_t> prompt(static_cast<size_t>(o.prompt));
    llm::Rng rng(o.seed);
    for (int32_t &t : prompt)
        t = static_cast<int32_t>(rng.next_u32() % static_cast<uint32_t>(c.vocab_size));
    std::vector<float> logits(static_cast<size_t>(c.vocab_size));
    if (o.parallel > 0 && o.auto_batch) {
        if (o.arrive > c.max_seq_len) {
            std::fprintf(stderr, "llm-bench: --arrive %d exceeds the model's %d positions\n",
                         o.arrive, c.max_seq_len);
            return 2;
        }
        return o.arrive ? run_arrival(o, *model, name, prompt)
                        : run_auto_batch(o, *model, name, prompt);
    }
    if (o.parallel > 0) return run_parallel(o, *model, name, prompt);
    if (!o.grammar_file.empty() || !o.schema_file.empty())
        return run_grammar(o, *model, name, prompt);

    // Each repeat is two runs: one as a caller would run it (prefill and
    // decode tok/s), then one with the probe paired with each decoded token
    // (efficiency: see BandwidthProbe).
    const int64_t weight_bytes = model->weight_bytes();
    std::vector<double> prefill, decode, paired_decode, bandwidth, efficiency;
    std::vector<int> probe_streams; // per repeat: the probe's faster pattern
    // Bytes of keys and values one position holds, all layers together.
    const int64_t kv_position_bytes =
        static_cast<int64_t>(2) * c.n_layers * c.kv_dim() * (o.kv_f16 ? 2 : 4);
    const int64_t kv_bytes = kv_position_bytes * n_ctx;
    int64_t rss = 0;
    double cpu_used = 0, wall_used = 0;
    llm::ForwardProfile profile;
    double profile_tok_s = 0, profile_bw = 0; // the profile run's decode and probe
    {
        llm::Transformer tf(*model, n_ctx, o.threads, o.kv_f16 ? llm::DType::F16 : llm::DType::F32);
        // Warm-up with the measured prompt: it pages in the scratch of a
        // batch of that size (a shorter one left that to the first timed
        // run, which then came out a quarter slower than the rest) and
        // wakes the CPU's clocks.
        run_once(tf, prompt, std::min(o.gen, 2), c.vocab_size, logits);
        std::unique_ptr<BandwidthProbe> probe;
        for (int r = 0; r < o.repeat; ++r) {
            const double cpu0 = cpu_seconds();
            const auto wall0 = std::chrono::steady_clock::now();
            const Result res = run_once(tf, prompt, o.gen, c.vocab_size, logits);
            cpu_used += cpu_seconds() - cpu0;
            wall_used += seconds_since(wall0);
            if (!probe) {
                rss = status_bytes("VmHWM:"); // the model's peak, before the probe's buffer exists
                probe = std::make_unique<BandwidthProbe>(o.probe_mb);
            }
            const Result paired =
                run_once(tf, prompt, o.gen, c.vocab_size, logits, probe.get(), weight_bytes);
            prefill.push_back(res.prefill_tok_s);
            decode.push_back(res.decode_tok_s);
            paired_decode.push_back(paired.decode_tok_s);
            bandwidth.push_back(static_cast<double>(weight_bytes) * o.gen / paired.probe_seconds);
            probe_streams.push_back(paired.probe_streams);
            // = weight bytes x paired tok/s / bandwidth: the probe's time over the decode's
            efficiency.push_back(paired.probe_seconds * paired.decode_tok_s / o.gen);
        }
        if (o.profile) { // paired with the probe too, as the efficiency's runs are
            const Result r = run_once(tf, prompt, o.gen, c.vocab_size, logits, probe.get(),
                                      weight_bytes, &profile);
            profile_tok_s = r.decode_tok_s;
            profile_bw = static_cast<double>(weight_bytes) * o.gen / r.probe_seconds;
        }
    }
    // Near 1 when the threads had their cores; well below when other
    // processes took turns on them (the numbers are then low too).
    const double cpu_share = cpu_used / wall_used / o.threads;
    const double bw = median(bandwidth);

    const double prefill_tok_s = median(prefill), decode_tok_s = median(decode);
    const double decode_efficiency = median(efficiency);
    // The same decode against the same probe, counting the KV cache reads
    // too: the probe's time scales with the bytes it reads.
    const double kv_read = kv_position_bytes * mean_attended_positions(o.prompt, o.gen);
    const double efficiency_with_kv =
        decode_efficiency * (static_cast<double>(weight_bytes) + kv_read) / weight_bytes;
    const double gflops = prefill_flops(c, o.prompt) * prefill_tok_s / o.prompt / 1e9;
    const char *simd = llm::simd_level_name(llm::kernel_table().level);
    // The probe's streams: "4", or "4/8/4" when the repeats' faster patterns differ.
    std::string streams = std::to_string(probe_streams[0]);
    if (std::any_of(probe_streams.begin(), probe_streams.end(),
                    [&](int n) { return n != probe_streams[0]; }))
        for (size_t i = 1; i < probe_streams.size(); ++i)
            streams += "/" + std::to_string(probe_streams[i]);

    if (o.json) {
        std::printf("{\"model\": \"%s\", \"weight_type\": \"%s\", \"kv_type\": \"%s\", "
                    "\"simd\": \"%s\", "
                    "\"threads\": %d, \"prompt_tokens\": %d, \"gen_tokens\": %d, "
                    "\"repeat\": %d, \"prefill_tok_s\": %.2f, \"decode_tok_s\": %.3f, "
                    "\"weight_bytes\": %" PRId64 ", \"kv_cache_bytes\": %" PRId64 ", "
                    "\"bandwidth_gb_s\": %.3f, \"probe_streams\": \"%s\", "
                    "\"decode_efficiency\": %.3f, "
                    "\"paired_decode_tok_s\": %.3f, \"kv_read_bytes_per_token\": %.0f, "
                    "\"decode_efficiency_with_kv\": %.3f, "
                    "\"prefill_gflops\": %.2f, \"peak_rss_bytes\": %" PRId64
                    ", \"base_rss_bytes\": %" PRId64 ", \"cpu_share\": %.2f, "
                    "\"kernel_row_streams\": %d",
                    name.c_str(), type_name(*model), o.kv_f16 ? "f16" : "f32", simd, o.threads,
                    o.prompt, o.gen, o.repeat, prefill_tok_s, decode_tok_s, weight_bytes, kv_bytes,
                    bw / 1e9, streams.c_str(), decode_efficiency, median(paired_decode), kv_read,
                    efficiency_with_kv, gflops, rss, base_rss, cpu_share,
                    llm::matvec_row_streams());
        if (o.profile) {
            std::printf(", \"profile_decode_tok_s\": %.3f, \"profile_bandwidth_gb_s\": %.3f, "
                        "\"profile\": [",
                        profile_tok_s, profile_bw / 1e9);
            const char *sep = "";
            for (const ProfileRow &r : profile_rows(profile, o.gen, profile_tok_s, profile_bw)) {
                std::printf("%s{\"stage\": \"%s\", \"calls_per_token\": %.2f, "
                            "\"us_per_token\": %.2f, \"share\": %.4f",
                            sep, r.stage.c_str(), r.calls_per_token, r.us_per_token, r.share);
                if (r.gb_s >= 0)
                    std::printf(", \"gb_s\": %.3f, \"of_bandwidth\": %.3f", r.gb_s, r.of_probe);
                std::printf("}");
                sep = ", ";
            }
            std::printf("]");
        }
        std::printf("}\n");
        return 0;
    }
    std::printf("model        %s%s\n", name.c_str(), o.shape.empty() ? "" : " (random weights)");
    std::printf("weights      %s, %.1f MB; KV cache %s, %.1f MB\n", type_name(*model),
                weight_bytes / 1e6, o.kv_f16 ? "f16" : "f32", kv_bytes / 1e6);
    std::printf("simd         %s, %d threads (busy %.0f%% of the timed runs), weights read as\n"
                "             %d row streams (%s)\n",
                simd, o.threads, 100 * cpu_share, llm::matvec_row_streams(),
                llm::matvec_row_streams_fixed() ? "fixed" : "measured on the first tokens");
    std::printf("runs         %d x (prompt %d + gen %d tokens), medians\n", o.repeat, o.prompt,
                o.gen);
    std::printf("prefill      %.1f tok/s, %.1f GFLOP/s\n", prefill_tok_s, gflops);
    std::printf("decode       %.2f tok/s\n", decode_tok_s);
    std::printf("bandwidth    %.2f GB/s (probe reads paired with the decoded tokens, %s "
                "streams)\n",
                bw / 1e9, streams.c_str());
    std::printf("efficiency   %.1f%% (a second run's decode, %.2f tok/s, against the probe\n"
                "             reading the same bytes after each of its tokens)\n",
                100 * decode_efficiency, median(paired_decode));
    std::printf("             %.1f%% counting the KV cache reads too (%.2f MB a token)\n",
                100 * efficiency_with_kv, kv_read / 1e6);
    std::printf("peak RSS     %.1f MB (weights + KV cache = %.1f MB); %.1f MB above the\n"
                "             %.1f MB the process held before loading the model\n",
                rss / 1e6, (weight_bytes + kv_bytes) / 1e6, (rss - base_rss) / 1e6, base_rss / 1e6);
    if (o.profile) {
        std::printf("profile      one more run paired with the probe (%.2f GB/s), its %d decoded\n"
                    "             tokens at %.2f tok/s; per token:\n",
                    profile_bw / 1e9, o.gen, profile_tok_s);
        std::printf("             %-11s %6s %10s %7s %8s %9s\n", "stage", "calls", "us", "share",
                    "GB/s", "of probe");
        for (const ProfileRow &r : profile_rows(profile, o.gen, profile_tok_s, profile_bw)) {
            std::printf("             %-11s ", r.stage.c_str());
            if (r.calls_per_token > 0)
                std::printf("%6.0f", r.calls_per_token);
            else
                std::printf("%6s", "");
            std::printf(" %10.1f %6.1f%%", r.us_per_token, 100 * r.share);
            if (r.gb_s >= 0) std::printf(" %8.2f %8.1f%%", r.gb_s, 100 * r.of_probe);
            std::printf("\n");
        }
    }
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    const Options o = parse(argc, argv);
    try {
        return run(o);
    } catch (const llm::Error &e) {
        std::fprintf(stderr, "llm-bench: %s\n", e.what());
        return 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "llm-bench: %s\n", e.what());
        return 1;
    }
}
