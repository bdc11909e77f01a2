/*
 * llm.h — the public C API of libllm, a small LLM inference engine.
 *
 * This is the only header a host needs. It is plain C99 (and valid C++), uses
 * only fixed-width types, and never lets a C++ exception, abort() or exit()
 * cross it.
 *
 * Objects
 *   llm_model        weights + tokenizer, immutable after load. Share it freely
 *                    between threads and contexts.
 *   llm_context      one conversation: KV cache, position, token history,
 *                    last logits. One call at a time per context (the caller
 *                    serialises); many contexts may run at once on one model.
 *                    Those are batched automatically: the model gathers the
 *                    single-token decodes of llm_forward / llm_context_step /
 *                    llm_generate running at once on its contexts into shared
 *                    steps (one pass over the weights for all), and feeds a
 *                    long prompt in chunks between them. Each context's
 *                    results agree with decoding alone within float rounding,
 *                    as a prompt's do (since 1.5; bit-identical before, and
 *                    with LLM_BATCH_EXACT=1 in the environment at model
 *                    load). No lock to manage: a lone call runs at once.
 *                    LLM_AUTO_BATCH=0 in the environment at model load turns
 *                    this off.
 *   llm_sampler      turns logits into a token: temperature, top-k, top-p,
 *                    min-p, repetition penalty and a seeded RNG.
 *   llm_detokenizer  turns a stream of token ids into UTF-8 text that never
 *                    ends inside a code point.
 *
 * The hot path is pull-style:
 *
 *     llm_forward(ctx, prompt, n_prompt);            // prefill
 *     for (;;) {
 *         llm_token t;
 *         llm_sample(sampler, ctx, &t);              // pick the next token
 *         if (llm_token_is_eog(model, t)) break;
 *         ... llm_detokenizer_push(d, t, buf, cap, &len) ...
 *         if (llm_forward(ctx, &t, 1) != LLM_OK) break;
 *     }
 *
 * llm_context_step() bundles sample + detokenize + forward into one call and
 * llm_generate() adds a callback loop on top, for hosts that prefer either.
 *
 * Conventions
 *   - Every fallible function returns an llm_status: LLM_OK (0) or a negative
 *     LLM_ERR_* code. llm_last_error() then holds a message for this thread.
 *     Out-parameters are set to NULL / 0 on failure.
 *   - Output buffers are caller-owned: (buf, cap, &needed). If cap is too
 *     small the call returns LLM_ERR_BUFFER_TOO_SMALL and sets *needed; a
 *     call with buf = NULL and cap = 0 is a size query. Strings written to a
 *     buffer are NOT NUL-terminated; *needed / *n_out counts bytes. The
 *     count out-parameter (n_out) may be NULL if the caller needs no count.
 *   - Input pointers are borrowed for the duration of the call only.
 *   - Params structs start with struct_size; obtain them from the matching
 *     *_default_params() function, change what you need, and pass a pointer
 *     (NULL means defaults). Fields are only ever appended.
 *   - Every *_free(NULL) is a no-op. Using an object after freeing it is
 *     undefined behaviour (as with free()); everything else in this header is
 *     checked and reported through a status.
 *   - Text is UTF-8 everywhere, including paths.
 *
 * What is checked, and what is undefined
 *   Checked (a status and a message, never a crash, abort or leak): NULL for
 *   any handle or pointer (getters then return 0 / NULL / LLM_TOKEN_NONE,
 *   void functions do nothing); zero-length inputs; token ids outside the
 *   vocabulary; too-small buffers; parameter values out of range; a
 *   struct_size below 4 or above 4096 (an uninitialised params struct);
 *   running out of context (CONTEXT_FULL); any model or tokenizer file
 *   content, however corrupt or hostile: sizes are checked against the file
 *   and against sane limits before anything is allocated or read, so loading
 *   costs at most about the file size (plus converted copies when
 *   weight_type asks for another type).
 *   Undefined, as in C generally: using a handle after its *_free (or
 *   freeing it twice), or a pointer libllm did not return; freeing a model
 *   while a context or detokenizer made from it is alive; calling into one
 *   context, sampler or detokenizer from two threads at once (except
 *   llm_context_cancel), or into the context that is running an
 *   llm_generate callback; pointers to less memory than the lengths and
 *   capacities passed with them; strings that should be NUL-terminated
 *   (paths, chat messages) and are not; a params struct_size larger than
 *   the memory behind it; changing or truncating a model file while a model
 *   loaded from it with use_mmap = 1 is alive (the OS may then raise SIGBUS).
 *   Memory: a context holds a KV cache of 2 * n_layer * n_ctx * kv_dim
 *   values (4 bytes each, 2 with kv_type LLM_KV_F16). n_ctx = 0 means the
 *   model's maximum, which an untrusted file chooses: hosts loading
 *   untrusted models should set n_ctx themselves.
 */
#ifndef LLM_H
#define LLM_H

#include <stddef.h>
#include <stdint.h>

/* ---- export macro -------------------------------------------------------- */
#if defined(LLM_STATIC) || defined(SWIG)
#define LLM_API
#elif defined(_WIN32)
#if defined(LLM_BUILDING)
#define LLM_API __declspec(dllexport)
#else
#define LLM_API __declspec(dllimport)
#endif
#else
#define LLM_API __attribute__((visibility("default")))
#endif

#if defined(SWIG)
#define LLM_DEPRECATED(msg)
#elif defined(_MSC_VER)
#define LLM_DEPRECATED(msg) __declspec(deprecated(msg))
#else
#define LLM_DEPRECATED(msg) __attribute__((deprecated(msg)))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- versions ------------------------------------------------------------- */
/* The compile-time version of this header. Compare it with llm_version_number()
 * at run time: a binary built against major N needs a libllm of major N. */
#define LLM_VERSION_MAJOR 1
#define LLM_VERSION_MINOR 5
#define LLM_VERSION_PATCH 0
#define LLM_VERSION_STRING "1.5.0"
#define LLM_VERSION_NUMBER (LLM_VERSION_MAJOR * 10000 + LLM_VERSION_MINOR * 100 + LLM_VERSION_PATCH)

/* "1.5.0": static storage, never NULL. */
LLM_API const char *llm_version(void);
/* MAJOR*10000 + MINOR*100 + PATCH of the loaded library. */
LLM_API int32_t llm_version_number(void);

/* What this process runs on, for logs and bug reports: space-separated
 * key=value pairs, e.g. "simd=avx2vnni simd_best=avx2vnni cores=8".
 *   simd       the kernels in use: scalar, neon, neondot, avx2, avx2vnni,
 *              avx512, avx512vnni or amx, picked from the CPU's features
 *              at the first call into libllm (the environment variable
 *              LLM_SIMD can force a lower one, for tests and benchmarks)
 *   simd_best  the best level this CPU and OS support
 *   cores      physical cores, the default n_threads of a context
 * Keys may be added in later versions. Static storage, never NULL, any
 * thread. Since 1.2. */
LLM_API const char *llm_system_info(void);

/* ---- status codes --------------------------------------------------------- */
/* Codes are never renumbered; new ones are appended. */
typedef int32_t llm_status;

#define LLM_OK 0                         /* success */
#define LLM_ERR_INVALID_ARGUMENT (-1)    /* NULL handle/pointer, bad param value */
#define LLM_ERR_NOT_FOUND (-2)           /* a file or folder does not exist */
#define LLM_ERR_IO (-3)                  /* a file exists but cannot be read/mapped */
#define LLM_ERR_TRUNCATED (-4)           /* a file ends before its header says it should */
#define LLM_ERR_SIZE_MISMATCH (-5)       /* a file is longer than its header accounts for */
#define LLM_ERR_BAD_DIMENSIONS (-6)      /* zero, negative, inconsistent or absurd shapes */
#define LLM_ERR_FORMAT (-7)              /* malformed content: JSON, tensor table, entries */
#define LLM_ERR_TOKENIZER_MISMATCH (-8)  /* tokenizer does not fit the model's vocab */
#define LLM_ERR_UNSUPPORTED (-9)         /* a valid file using a feature libllm lacks */
#define LLM_ERR_TOKEN_OUT_OF_RANGE (-10) /* a token id outside [0, n_vocab) */
#define LLM_ERR_CONTEXT_FULL (-11)       /* the context has no room for more tokens */
#define LLM_ERR_BUFFER_TOO_SMALL (-12)   /* see *needed for the size required */
#define LLM_ERR_CANCELLED (-13)          /* llm_context_cancel() or a callback stopped it */
#define LLM_ERR_OUT_OF_MEMORY (-14)      /* an allocation failed */
#define LLM_ERR_INTERNAL (-15)           /* a bug in libllm: please report it */
#define LLM_ERR_TEMPLATE (-16)           /* since 1.4: a chat template failed to parse or raised */
#define LLM_ERR_GRAMMAR (-17)            /* since 1.4: a bad grammar or JSON Schema */
#define LLM_ERR_STATE_MISMATCH (-18)     /* since 1.4: a saved state from another model/format */

/* A short static description of a status code ("context full"). Never NULL;
 * unknown codes give "unknown status". Any thread. */
LLM_API const char *llm_status_str(llm_status status);

/* Details of the last error on the calling thread ("stories.bin: file is
 * 1056 bytes but the header needs 1056540"). Owned by the library, valid
 * until the next llm_* call on this thread. Never NULL; "" after success
 * is not guaranteed — only read it after a call failed. */
LLM_API const char *llm_last_error(void);

/* ---- logging -------------------------------------------------------------- */
/* Log levels, lowest first (llm_log_set's min_level). */
#define LLM_LOG_DEBUG 0
#define LLM_LOG_INFO 1
#define LLM_LOG_WARN 2
#define LLM_LOG_ERROR 3

/* Called with a NUL-terminated message on the thread that logs. */
typedef void (*llm_log_callback)(int32_t level, const char *message, void *user_data);

/* libllm is silent unless a sink is installed. Pass NULL to remove it.
 * Process-wide; safe to call from any thread, but a message racing with the
 * change may still reach the old sink. */
LLM_API void llm_log_set(llm_log_callback callback, void *user_data, int32_t min_level);

/* ---- tokens --------------------------------------------------------------- */
/* A token id, 0 .. llm_model_n_vocab() - 1. */
typedef int32_t llm_token;
/* "No token": what token getters return when the model has none. */
#define LLM_TOKEN_NONE (-1)

/* ---- model ---------------------------------------------------------------- */
/* A loaded model (opaque): weights, tokenizer, chat template. */
typedef struct llm_model llm_model;

/* How weights are held in memory. AUTO keeps the file's type (fp32 stays
 * fp32, bf16 stays bf16, a GGUF file's quantized tensors stay as they are:
 * nothing is widened). Q8_0 quantizes matrices at load (blocks of 32 int8 +
 * one scale). Since 1.3 also GGUF's block types (ggml's layouts): a GGUF
 * file may hold them, and asking for one at load quantizes fp32/bf16/f16
 * matrices to it (a matrix whose rows do not fit the type's block, 32 or 256
 * values, stays as it is). A matrix that is already block-quantized (Q8_0
 * or a GGUF block type) is never converted again. */
#define LLM_WEIGHTS_AUTO 0
#define LLM_WEIGHTS_F32 1
#define LLM_WEIGHTS_BF16 2
#define LLM_WEIGHTS_F16 3
#define LLM_WEIGHTS_Q8_0 4
#define LLM_WEIGHTS_Q4_0 5  /* since 1.3 */
#define LLM_WEIGHTS_Q4_1 6  /* since 1.3 */
#define LLM_WEIGHTS_Q5_0 7  /* since 1.3 */
#define LLM_WEIGHTS_Q5_1 8  /* since 1.3 */
#define LLM_WEIGHTS_Q4_K 9  /* since 1.3 */
#define LLM_WEIGHTS_Q5_K 10 /* since 1.3 */
#define LLM_WEIGHTS_Q6_K 11 /* since 1.3 */

/* How to load a model. Get it from llm_model_default_params(). */
typedef struct llm_model_params {
    uint32_t struct_size;
    /* Tokenizer file for llama2.c checkpoints; NULL = "tokenizer.bin" in the
     * model's folder. Ignored for Hugging Face folders (tokenizer.json). */
    const char *tokenizer_path;
    /* LLM_WEIGHTS_*: the in-memory weight type. */
    int32_t weight_type;
    /* 1 = memory-map the file (default), 0 = read it into memory. */
    int32_t use_mmap;
} llm_model_params;

/* Defaults: weights as the file holds them, memory-mapped. */
LLM_API llm_model_params llm_model_default_params(void);

/* Load a model from `path`: a llama2.c checkpoint (.bin) or a Hugging Face
 * folder (config.json + model.safetensors + tokenizer.json). The format is
 * detected from the content. On success *out owns the model: free it with
 * llm_model_free() after every context using it has been freed.
 * Errors: INVALID_ARGUMENT, NOT_FOUND, IO, TRUNCATED, SIZE_MISMATCH,
 * BAD_DIMENSIONS, FORMAT, TOKENIZER_MISMATCH, UNSUPPORTED, OUT_OF_MEMORY. */
LLM_API llm_status llm_model_load(const char *path, const llm_model_params *params,
                                  llm_model **out);
LLM_API void llm_model_free(llm_model *model);

/* Shape and identity of a loaded model. Pure getters: any thread. */
LLM_API int32_t llm_model_n_vocab(const llm_model *model);
LLM_API int32_t llm_model_n_ctx_train(const llm_model *model); /* max positions */
LLM_API int32_t llm_model_n_embd(const llm_model *model);
LLM_API int32_t llm_model_n_layer(const llm_model *model);
LLM_API int32_t llm_model_n_head(const llm_model *model);
LLM_API int32_t llm_model_n_head_kv(const llm_model *model);
/* Number of weights (parameters) and the bytes they take in memory. */
LLM_API int64_t llm_model_n_params(const llm_model *model);
LLM_API int64_t llm_model_weight_bytes(const llm_model *model);
/* LLM_WEIGHTS_* actually in use for the matrices. */
LLM_API int32_t llm_model_weight_type(const llm_model *model);
/* Architecture name: "llama", "qwen2" or (since 1.3) "qwen3". Static
 * storage, never NULL. */
LLM_API const char *llm_model_arch(const llm_model *model);
/* The model file's metadata, as text (since 1.3). A GGUF file's key-value
 * pairs: strings as they are, numbers and booleans written out ("0.5",
 * "true"); array values are not listed. Every model has at least
 * "general.architecture". Keys: index 0 .. llm_model_meta_count() - 1, in
 * sorted order. Buffer convention as everywhere (no NUL is written); an
 * index out of range is INVALID_ARGUMENT, a key the file lacks NOT_FOUND.
 *   size_t n;
 *   llm_model_meta_value(model, "general.name", NULL, 0, &n);  -> n bytes */
LLM_API int32_t llm_model_meta_count(const llm_model *model);
LLM_API llm_status llm_model_meta_key(const llm_model *model, int32_t index, char *buf, size_t cap,
                                      size_t *needed);
LLM_API llm_status llm_model_meta_value(const llm_model *model, const char *key, char *buf,
                                        size_t cap, size_t *needed);
/* The name of an LLM_WEIGHTS_* value ("auto", "f32", "bf16", "f16", "q8_0",
 * "q4_0", "q4_1", "q5_0", "q5_1", "q4_k", "q5_k", "q6_k"), or "" for an
 * unknown one; and the value of a name, or -1. Since 1.3. */
LLM_API const char *llm_weight_type_name(int32_t weight_type);
LLM_API int32_t llm_weight_type_from_name(const char *name);
/* BOS token id, or LLM_TOKEN_NONE when the model has none. */
LLM_API llm_token llm_model_bos(const llm_model *model);
/* The primary EOS token id, or LLM_TOKEN_NONE. */
LLM_API llm_token llm_model_eos(const llm_model *model);
/* 1 if `token` ends a generation (any EOS id from the model's configs; for
 * llama2.c checkpoints BOS too, since those models end a story with it). */
LLM_API int32_t llm_token_is_eog(const llm_model *model, llm_token token);
/* 1 if `token` is a special/control token (BOS, EOS, <|im_start|>, ...). */
LLM_API int32_t llm_token_is_special(const llm_model *model, llm_token token);

/* ---- tokenizer ------------------------------------------------------------ */
/* Flags for llm_tokenize. */
#define LLM_TOKENIZE_ADD_SPECIAL 1   /* add BOS/EOS as the model's tokenizer config says */
#define LLM_TOKENIZE_PARSE_SPECIAL 2 /* "<|im_start|>" in the text becomes the special id */

/* Encode `text_len` bytes of UTF-8 into token ids. Writes up to `cap` ids to
 * `out` and the count to *n_out. If `cap` is too small: BUFFER_TOO_SMALL and
 * *n_out = the count needed. Reentrant: any thread.
 * Invalid UTF-8 is encoded byte-wise (byte fallback), never rejected. */
LLM_API llm_status llm_tokenize(const llm_model *model, const char *text, size_t text_len,
                                int32_t flags, llm_token *out, size_t cap, size_t *n_out);

/* The raw bytes of one token (may be part of a UTF-8 sequence). */
LLM_API llm_status llm_token_to_piece(const llm_model *model, llm_token token, char *buf,
                                      size_t cap, size_t *n_out);

/* Flags for llm_detokenize. */
#define LLM_DETOKENIZE_RENDER_SPECIAL 1 /* write special tokens' text instead of skipping them */

/* Decode ids back to text, as the model's tokenizer does (leading-space and
 * byte-fallback rules included). Special tokens are skipped unless
 * LLM_DETOKENIZE_RENDER_SPECIAL. Output may end inside a UTF-8 sequence if
 * the ids do. Reentrant. */
LLM_API llm_status llm_detokenize(const llm_model *model, const llm_token *tokens, size_t n_tokens,
                                  int32_t flags, char *buf, size_t cap, size_t *n_out);

/* Streaming decode: push one id at a time, receive only complete UTF-8.
 * Incomplete sequences are held back until a later token completes them
 * (an invalid sequence is emitted as U+FFFD). One detokenizer per stream;
 * it keeps a reference to the model's vocabulary (free it first). */
typedef struct llm_detokenizer llm_detokenizer;

/* A new detokenizer for `model`'s vocabulary; free it with
 * llm_detokenizer_free(). */
LLM_API llm_status llm_detokenizer_new(const llm_model *model, llm_detokenizer **out);
/* Free a detokenizer (NULL is a no-op). */
LLM_API void llm_detokenizer_free(llm_detokenizer *d);
/* Decode `token` and write the text that is now complete. If cap is too
 * small nothing is consumed: BUFFER_TOO_SMALL, *n_out = bytes needed.
 * A buffer of llm_detokenizer_max_bytes() always suffices. */
LLM_API llm_status llm_detokenizer_push(llm_detokenizer *d, llm_token token, char *buf, size_t cap,
                                        size_t *n_out);
/* Write whatever is held back (as U+FFFD for an incomplete tail) and reset. */
LLM_API llm_status llm_detokenizer_flush(llm_detokenizer *d, char *buf, size_t cap, size_t *n_out);
/* Forget held-back bytes and start as at the beginning of a text. */
LLM_API void llm_detokenizer_reset(llm_detokenizer *d);
/* Upper bound of bytes one push or flush can write for this model. */
LLM_API size_t llm_detokenizer_max_bytes(const llm_detokenizer *d);

/* ---- chat ----------------------------------------------------------------- */
/* One message of a conversation for llm_chat_format. */
typedef struct llm_chat_message {
    const char *role;    /* "system", "user", "assistant" (NUL-terminated UTF-8) */
    const char *content; /* NUL-terminated UTF-8 */
} llm_chat_message;

/* Format messages with the model's chat template (ChatML for Qwen:
 * "<|im_start|>role\ncontent<|im_end|>\n"...). With add_assistant != 0 the
 * text ends with the opening of an assistant turn. Tokenize the result with
 * LLM_TOKENIZE_PARSE_SPECIAL. UNSUPPORTED if the model has no chat format. */
LLM_API llm_status llm_chat_format(const llm_model *model, const llm_chat_message *messages,
                                   size_t n_messages, int32_t add_assistant, char *buf, size_t cap,
                                   size_t *n_out);

/* Since 1.4: chat templates from the model itself. llm_chat_format above
 * renders the model's own Jinja template (tokenizer_config.json's
 * chat_template or chat_template.jinja, GGUF tokenizer.chat_template) and
 * falls back to ChatML only for models without one. */
typedef struct llm_chat_params {
    uint32_t struct_size;
    /* Jinja template used instead of the model's (NULL or "": the model's). */
    const char *template_override;
    /* JSON array of tool definitions given to the template as `tools`
     * (NULL: none). */
    const char *tools_json;
    /* JSON object of extra template variables, e.g. {"enable_thinking":false}
     * (NULL: none). */
    const char *extra_vars_json;
    /* Non-zero: end with the opening of an assistant turn. Default 1. */
    int32_t add_generation_prompt;
} llm_chat_params;

/* Defaults: the model's template, no tools or extra variables, with the
 * generation prompt. */
LLM_API llm_chat_params llm_chat_default_params(void);

/* Render a conversation with the model's chat template. messages_json is a
 * JSON array of messages as transformers takes them: {"role", "content"} with
 * content a string or a list of parts, plus e.g. tool_calls or
 * reasoning_content. params may be NULL (defaults). Tokenize the prompt
 * with LLM_TOKENIZE_PARSE_SPECIAL. Errors: INVALID_ARGUMENT for bad JSON,
 * TEMPLATE when the template fails to parse or raises (the message names the
 * line), UNSUPPORTED when the model has no template and none is given. */
LLM_API llm_status llm_chat_apply(const llm_model *model, const char *messages_json,
                                  const llm_chat_params *params, char *buf, size_t cap,
                                  size_t *n_out);

/* The model's Jinja chat template (0 bytes if it has none). */
LLM_API llm_status llm_model_chat_template(const llm_model *model, char *buf, size_t cap,
                                           size_t *n_out);

/* Split a generated assistant answer into JSON
 * {"content": "...", "reasoning_content": "...", "tool_calls": [{"name": "...",
 * "arguments": {...}}]}: a <think>...</think> block (Qwen3, DeepSeek-R1)
 * becomes reasoning_content, <tool_call>{json}</tool_call> blocks
 * (Qwen, Hermes) and a Llama 3.1 {"name": ..., "parameters": ...} answer
 * become tool_calls. An unterminated <think> is all reasoning; an
 * unterminated or malformed tool call stays in content. model may be
 * NULL. */
LLM_API llm_status llm_chat_parse(const llm_model *model, const char *text, size_t len,
                                  char *json_buf, size_t cap, size_t *n_out);

/* ---- context -------------------------------------------------------------- */
/* One conversation on a model (opaque): KV cache, position, tokens, logits. */
typedef struct llm_context llm_context;

/* How the KV cache stores keys and values. F16 halves the cache's memory and
 * the bytes each generated token reads from it; keys and values are rounded
 * to fp16 (11 significant bits, magnitudes clamped to 65504), so logits
 * move slightly. */
#define LLM_KV_F32 0
#define LLM_KV_F16 1

/* How to create a context. Get it from llm_context_default_params(). */
typedef struct llm_context_params {
    uint32_t struct_size;
    /* Positions this context can hold (KV cache size). 0 = the model's
     * maximum. Larger than the model's maximum is BAD_DIMENSIONS. */
    int32_t n_ctx;
    /* Worker threads for this context's compute. 0 = physical cores. */
    int32_t n_threads;
    /* LLM_KV_*: the KV cache's value type. Default LLM_KV_F32. (Added in
     * 1.1: a struct_size without it means F32.) */
    int32_t kv_type;
    /* 1 = the context can run llm_embed (keeps the final hidden states of
     * the tokens it runs); 0 = off (default; a struct_size without it means
     * 0). Since 1.4. */
    int32_t embeddings;
} llm_context_params;

/* Defaults: the model's maximum positions, physical cores, fp32 KV cache,
 * no embeddings. */
LLM_API llm_context_params llm_context_default_params(void);

/* Create a context on `model`. The model must outlive it. */
LLM_API llm_status llm_context_new(const llm_model *model, const llm_context_params *params,
                                   llm_context **out);
LLM_API void llm_context_free(llm_context *ctx);

/* Run the model over `n_tokens` tokens appended at the current position and
 * keep the logits of the last one. All ids are checked before any work.
 * Errors: INVALID_ARGUMENT for n_tokens = 0; TOKEN_OUT_OF_RANGE;
 * CONTEXT_FULL if position + n_tokens > n_ctx (nothing is consumed, the
 * logits stay: reset or rewind, then go on); CANCELLED (the tokens processed
 * so far stay in the cache, see llm_context_position and
 * llm_context_tokens; if any were processed the logits are cleared: forward
 * the remaining tokens to finish). */
LLM_API llm_status llm_forward(llm_context *ctx, const llm_token *tokens, size_t n_tokens);

/* Number of tokens in the cache (the next token's position). */
LLM_API int32_t llm_context_position(const llm_context *ctx);
LLM_API int32_t llm_context_n_ctx(const llm_context *ctx);
/* Logits after the last llm_forward: n_vocab floats. The pointer is owned by
 * the context and valid until its next call; NULL before any forward. */
LLM_API const float *llm_context_logits(const llm_context *ctx);
/* The same, copied into a caller buffer (for bindings). */
LLM_API llm_status llm_context_copy_logits(const llm_context *ctx, float *buf, size_t cap,
                                           size_t *n_out);
/* The tokens in the cache, in order. */
LLM_API llm_status llm_context_tokens(const llm_context *ctx, llm_token *buf, size_t cap,
                                      size_t *n_out);
/* Keep the first `position` tokens and forget the rest (0 = empty). The
 * logits are cleared until the next forward. */
LLM_API llm_status llm_context_rewind(llm_context *ctx, int32_t position);
/* Same as rewind to 0, and clears a pending cancel. */
LLM_API void llm_context_reset(llm_context *ctx);

/* Ask the running (or next) llm_forward / llm_context_step / llm_generate on
 * this context to stop: it returns LLM_ERR_CANCELLED, checked between layers
 * and tokens. Safe from any thread, including signal-free async contexts.
 * The request is consumed by the call that returns CANCELLED (or by
 * llm_context_reset); the context stays usable. */
LLM_API void llm_context_cancel(llm_context *ctx);

/* ---- saved state and shared prefixes (since 1.4) -------------------------- */
/* A context's state is its tokens, their KV cache, the last logits and its
 * text stream's held-back bytes: a context loading it continues exactly as
 * the saved one would (the same logits now and after every next token, so
 * sampling can go on at once). The state is a versioned binary ("LLMSTATE")
 * tied to the model: its shape, weight types and a hash of some weights.
 * A state saved from an fp32 KV cache loads into an fp16 one (rounded) and
 * the other way (exactly); otherwise the KV type is kept.
 * Loading checks everything before changing the context. Errors:
 * STATE_MISMATCH (saved from another model; the message says what differs),
 * FORMAT (not a state, another format version, damaged: it carries a
 * checksum), TRUNCATED, CONTEXT_FULL (more tokens than the context holds;
 * its n_ctx may differ from the saving one's otherwise), NOT_FOUND / IO for
 * files. On error the context is unchanged. */

/* Bytes llm_context_state_save needs now. */
LLM_API llm_status llm_context_state_size(const llm_context *ctx, size_t *out);
/* Write the state to (buf, cap), its size to *n_out; BUFFER_TOO_SMALL (with
 * *n_out = bytes needed) if cap is too small. */
LLM_API llm_status llm_context_state_save(const llm_context *ctx, void *buf, size_t cap,
                                          size_t *n_out);
/* Replace ctx's tokens, cache, logits and stream with a saved state. */
LLM_API llm_status llm_context_state_load(llm_context *ctx, const void *buf, size_t len);
/* The same through a file (UTF-8 path; an existing file is replaced). */
LLM_API llm_status llm_context_state_save_file(const llm_context *ctx, const char *path);
LLM_API llm_status llm_context_state_load_file(llm_context *ctx, const char *path);

/* Make dst hold src's first n_tokens tokens and their KV cache, as if it had
 * run them itself (prefill a shared system prompt once, copy it into each
 * conversation's context). The contexts may differ in n_ctx and KV type
 * (fp32 keys and values are rounded into an fp16 cache). dst gets src's
 * logits and text stream when n_tokens is src's whole position; otherwise
 * its logits are cleared until the next forward, as after a rewind.
 * Errors: INVALID_ARGUMENT (n_tokens outside 0..src's position, or dst ==
 * src), STATE_MISMATCH (the contexts run different models), CONTEXT_FULL
 * (n_tokens > dst's n_ctx). On error dst is unchanged. Do not run src
 * concurrently. */
LLM_API llm_status llm_context_copy_prefix(llm_context *dst, const llm_context *src,
                                           int32_t n_tokens);

/* ---- embeddings (since 1.4) ----------------------------------------------- */
/* How llm_embed turns the tokens' hidden states into the output:
 *   NONE   every token's state: n_tokens x n_embd floats, row by row
 *   MEAN   the average of the tokens' states: n_embd floats
 *   LAST   the last token's state (Qwen3-Embedding and other decoder
 *          embedding models; end the input with the EOS their tokenizer
 *          adds)
 *   FIRST  the first token's state (BERT's [CLS] style)
 *   DEFAULT  llm_model_default_pooling(model) */
#define LLM_POOLING_DEFAULT 0
#define LLM_POOLING_NONE 1
#define LLM_POOLING_MEAN 2
#define LLM_POOLING_LAST 3
#define LLM_POOLING_FIRST 4

/* The pooling a model asks for: LLM_POOLING_LAST, FIRST or MEAN, from a
 * GGUF file's "<arch>.pooling_type" key or a Hugging Face folder's
 * sentence-transformers Pooling config (modules.json, 1_Pooling/config.json),
 * else MEAN. Any thread. */
LLM_API int32_t llm_model_default_pooling(const llm_model *model);

/* The embedding of `n_tokens` tokens: the context is reset, the tokens run
 * from position 0, and the hidden states after the model's final norm are
 * pooled as `pooling` says (LLM_POOLING_*) and, with normalize = 1, scaled
 * to unit L2 norm (each row for NONE; a zero vector stays zero). The output
 * is n_embd floats, or n_tokens x n_embd for NONE, written to (buf, cap) in
 * floats with the usual convention: cap too small is BUFFER_TOO_SMALL with
 * *n_out = the floats needed, before anything runs (buf = NULL, cap = 0 is
 * a size query). No logits are computed: afterwards the context holds the
 * tokens at positions 0 .. n_tokens - 1 and no logits.
 * The context must have been created with llm_context_params.embeddings =
 * 1, else INVALID_ARGUMENT. Other errors: INVALID_ARGUMENT (n_tokens = 0,
 * pooling or normalize out of range), TOKEN_OUT_OF_RANGE, CONTEXT_FULL
 * (n_tokens > n_ctx), CANCELLED (llm_context_cancel). These are found
 * before anything runs and leave the context as it was, except CANCELLED,
 * which leaves it empty.
 *   size_t n;
 *   float v[1024];   -- llm_model_n_embd(model) floats
 *   llm_embed(ctx, ids, n_ids, LLM_POOLING_DEFAULT, 1, v, 1024, &n); */
LLM_API llm_status llm_embed(llm_context *ctx, const llm_token *tokens, size_t n_tokens,
                             int32_t pooling, int32_t normalize, float *buf, size_t cap,
                             size_t *n_out);

/* ---- sampler -------------------------------------------------------------- */
/* Picks tokens from logits (opaque): settings, RNG, optional grammar. */
typedef struct llm_sampler llm_sampler;

/* How a sampler picks. Get it from llm_sampler_default_params(). */
typedef struct llm_sampler_params {
    uint32_t struct_size;
    float temperature;     /* 0 = greedy (argmax); default 1.0 */
    float top_p;           /* nucleus; 1 (or 0) = off; default 0.9 as llama2.c */
    int32_t top_k;         /* 0 = off; default 0 */
    float min_p;           /* drop tokens with p < min_p * p_max; 0 = off (default) */
    float repeat_penalty;  /* >1 discourages repeats (CTRL rule); 1 = off (default) */
    int32_t repeat_last_n; /* window of recent tokens for the penalty; default 64 */
    uint64_t seed;         /* RNG seed; 0 is replaced by a fixed constant */
} llm_sampler_params;

/* Defaults: temperature 1, top-p 0.9, everything else off. */
LLM_API llm_sampler_params llm_sampler_default_params(void);
/* A new sampler (NULL params: defaults); free it with llm_sampler_free(). */
LLM_API llm_status llm_sampler_new(const llm_sampler_params *params, llm_sampler **out);
/* Free a sampler (NULL is a no-op). */
LLM_API void llm_sampler_free(llm_sampler *sampler);
/* Restart the RNG from `seed` (same sequence as a new sampler). */
LLM_API void llm_sampler_reseed(llm_sampler *sampler, uint64_t seed);

/* Pick the next token from ctx's current logits. With only temperature and
 * top-p set, the result equals llama2.c's sampler for the same seed.
 * Does not modify the context. Errors: INVALID_ARGUMENT when ctx has no
 * logits yet (call llm_forward first). */
LLM_API llm_status llm_sample(llm_sampler *sampler, const llm_context *ctx, llm_token *out);

/* ---- structured output (since 1.4) ---------------------------------------- */
/* Constrain a sampler to the sentences of a grammar: from then on
 * llm_sample (and so llm_context_step and llm_generate) only picks tokens
 * whose text continues a sentence of the grammar, and advances the grammar by
 * the token it returns. End-of-generation tokens are allowed only where the
 * sentence may end, and once nothing else can follow they are the only
 * choice, so generation stops there. The text is matched as it is decoded
 * mid-stream (a tokenizer that drops the first space of the output may
 * differ on the very first token). Calling llm_sample again at the same
 * context position (the token was not fed, e.g. a cancelled step) re-draws
 * that position: the grammar steps back first. Reuse a sampler for a new
 * generation only after setting the grammar again (it restarts it) or
 * clearing it. `model` is the model whose tokens will be sampled (the
 * sampler keeps its own copy of the token texts). Errors: GRAMMAR with
 * "line:col: what was expected" for a bad grammar (undefined rule, no root
 * rule, left recursion, limits); llm_sample returns GRAMMAR if no token can
 * continue the sentence. */

/* gbnf: llama.cpp's GBNF notation (rules `name ::= ...`, | ( ) ? * + {m,n},
 * "strings", [classes], [^negated], ., # comments). root_rule: the start
 * rule, NULL = "root". */
LLM_API llm_status llm_sampler_set_grammar(llm_sampler *sampler, const llm_model *model,
                                           const char *gbnf, const char *root_rule);
/* A JSON Schema (as JSON text): the output is JSON that validates against it.
 * Unsupported schema keywords are refused with GRAMMAR (never ignored). */
LLM_API llm_status llm_sampler_set_json_schema(llm_sampler *sampler, const llm_model *model,
                                               const char *schema_json);
/* Remove the grammar: sampling is unconstrained again. */
LLM_API llm_status llm_sampler_clear_grammar(llm_sampler *sampler);

/* ---- generation helpers --------------------------------------------------- */
/* One decoding step: sample a token, decode its text through the context's
 * own stream decoder (complete UTF-8 only), and — unless the token ends the
 * generation — feed it back with llm_forward.
 * *out_token gets the token; *out_eog is 1 if it is end-of-generation (it is
 * then not fed, and its text is not written). The text goes to (buf, cap):
 * a buffer of llm_context_step_max_bytes() bytes always suffices; if cap is
 * smaller the call returns BUFFER_TOO_SMALL before sampling anything.
 * Errors as llm_sample and llm_forward (CONTEXT_FULL when there is no room
 * to feed the sampled token: the token and its text are still returned;
 * CANCELLED: the sampled token was not fed and its text is neither written
 * nor consumed, so the next call samples again and the stream stays
 * intact). */
LLM_API llm_status llm_context_step(llm_context *ctx, llm_sampler *sampler, llm_token *out_token,
                                    int32_t *out_eog, char *buf, size_t cap, size_t *n_out);
LLM_API size_t llm_context_step_max_bytes(const llm_context *ctx);

/* Called for every generated token with its complete-UTF-8 text (possibly
 * empty, not NUL-terminated), on the thread that called llm_generate.
 * Return 0 to continue, non-zero to stop (llm_generate then returns
 * LLM_ERR_CANCELLED). Do not call into the same context from it. */
typedef int32_t (*llm_piece_callback)(const char *text, size_t text_len, llm_token token,
                                      void *user_data);

/* How llm_generate runs. Get it from llm_generate_default_params(). */
typedef struct llm_generate_params {
    uint32_t struct_size;
    int32_t max_tokens;  /* tokens to generate at most; 0 = until EOS or context full */
    int32_t stop_at_eog; /* 1 (default): stop at an end-of-generation token */
} llm_generate_params;

/* Defaults: no token limit, stop at end-of-generation. */
LLM_API llm_generate_params llm_generate_default_params(void);

/* Feed `prompt` (may be empty to continue from the current state), then
 * generate with `sampler`, calling `callback` (may be NULL) per token.
 * *n_generated (may be NULL) receives the count of tokens generated.
 * Returns OK when max_tokens or EOG is reached, CONTEXT_FULL when the
 * context filled up first (the text so far was delivered), CANCELLED. */
LLM_API llm_status llm_generate(llm_context *ctx, llm_sampler *sampler, const llm_token *prompt,
                                size_t n_prompt, const llm_generate_params *params,
                                llm_piece_callback callback, void *user_data, int32_t *n_generated);

/* ---- batched decoding (since 1.4) ------------------------------------------ */
/* One decoding step of several contexts on one model at once: context i gets
 * tokens[i] appended, as llm_forward with that one token, and its logits set.
 * The n tokens go through each layer together: each weight is read from
 * memory once per step for all of them instead of once per context. The
 * results are llm_forward's with the one token within float rounding, as a
 * prompt's are (since 1.5: enough tokens go through the batch kernels);
 * with LLM_BATCH_EXACT=1 in the environment at model load the arithmetic per
 * token stays that of a lone decode, bit for bit (always so before 1.5).
 * Each context keeps its own cache, position and logits.
 * Compute runs on ctxs[0]'s threads, on the calling thread's behalf; none of
 * the contexts may be used by another call meanwhile.
 * Checked before any work: n > 0, no NULL context, all on one model (else
 * INVALID_ARGUMENT), no context twice (INVALID_ARGUMENT), every token in
 * range (TOKEN_OUT_OF_RANGE) and every context with room (CONTEXT_FULL);
 * the message names the first bad index, and nothing changes.
 * llm_context_cancel works per context: a context cancelled before or during
 * the step gets nothing appended (its logits stay if it was cancelled
 * before, else they are cleared) and the request is consumed; the others
 * complete. out_status (n entries, may be NULL) receives each context's
 * result: LLM_OK or LLM_ERR_CANCELLED. Returns OK when every context is OK,
 * else the first context's status that is not. */
LLM_API llm_status llm_decode_batch(llm_context *const *ctxs, const llm_token *tokens, size_t n,
                                    llm_status *out_status);

/* llm_context_step for several contexts together: each context samples a
 * token from its logits with samplers[i] (one sampler may serve several
 * contexts: they then draw from its RNG in index order), and the tokens
 * that do not end the generation are fed with one llm_decode_batch.
 * out_tokens[i] gets the token; out_eog[i] (may be NULL) is 1 if it is
 * end-of-generation (it is then not fed). No text is produced: decode the
 * tokens with a llm_detokenizer per stream (a later llm_context_step on the
 * context catches its own stream up with the tokens fed here).
 * Checked before anything is sampled: as llm_decode_batch, plus no NULL
 * sampler and every context with logits (INVALID_ARGUMENT).
 * out_status[i] (may be NULL) gets context i's result: OK (also for an
 * end-of-generation token), CONTEXT_FULL (no room to feed the sampled token:
 * it is still returned) or CANCELLED (not fed; the next step samples
 * again). Returns OK when every context is OK, else the first context's
 * status that is not. */
LLM_API llm_status llm_step_batch(llm_context *const *ctxs, llm_sampler *const *samplers, size_t n,
                                  llm_token *out_tokens, int32_t *out_eog, llm_status *out_status);

#ifdef __cplusplus
}
#endif

#endif /* LLM_H */
