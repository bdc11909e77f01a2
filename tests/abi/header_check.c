/* llm.h must compile cleanly as strict C99 and as C++ (see cmake/abi.cmake):
 * -Wall -Wextra -Werror -pedantic. It also freezes what programs compiled
 * against llm.h 1.x rely on without calling a function: field offsets of the
 * public structs (fields are only appended) and the values of the constants.
 * A failure here is an ABI break: see abi/libllm.symbols' note in
 * cmake/abi.cmake. */
#include "llm.h"

#include <stddef.h>

#define LLM_FROZEN(name, condition) typedef char llm_frozen_##name[(condition) ? 1 : -1]

LLM_FROZEN(ok, LLM_OK == 0);
LLM_FROZEN(err_invalid_argument, LLM_ERR_INVALID_ARGUMENT == -1);
LLM_FROZEN(err_not_found, LLM_ERR_NOT_FOUND == -2);
LLM_FROZEN(err_io, LLM_ERR_IO == -3);
LLM_FROZEN(err_truncated, LLM_ERR_TRUNCATED == -4);
LLM_FROZEN(err_size_mismatch, LLM_ERR_SIZE_MISMATCH == -5);
LLM_FROZEN(err_bad_dimensions, LLM_ERR_BAD_DIMENSIONS == -6);
LLM_FROZEN(err_format, LLM_ERR_FORMAT == -7);
LLM_FROZEN(err_tokenizer_mismatch, LLM_ERR_TOKENIZER_MISMATCH == -8);
LLM_FROZEN(err_unsupported, LLM_ERR_UNSUPPORTED == -9);
LLM_FROZEN(err_token_out_of_range, LLM_ERR_TOKEN_OUT_OF_RANGE == -10);
LLM_FROZEN(err_context_full, LLM_ERR_CONTEXT_FULL == -11);
LLM_FROZEN(err_buffer_too_small, LLM_ERR_BUFFER_TOO_SMALL == -12);
LLM_FROZEN(err_cancelled, LLM_ERR_CANCELLED == -13);
LLM_FROZEN(err_out_of_memory, LLM_ERR_OUT_OF_MEMORY == -14);
LLM_FROZEN(err_internal, LLM_ERR_INTERNAL == -15);

LLM_FROZEN(log_levels,
           LLM_LOG_DEBUG == 0 && LLM_LOG_INFO == 1 && LLM_LOG_WARN == 2 && LLM_LOG_ERROR == 3);
LLM_FROZEN(weights, LLM_WEIGHTS_AUTO == 0 && LLM_WEIGHTS_F32 == 1 && LLM_WEIGHTS_BF16 == 2 &&
                        LLM_WEIGHTS_F16 == 3 && LLM_WEIGHTS_Q8_0 == 4);
LLM_FROZEN(token_none, LLM_TOKEN_NONE == -1);
LLM_FROZEN(tokenize_flags, LLM_TOKENIZE_ADD_SPECIAL == 1 && LLM_TOKENIZE_PARSE_SPECIAL == 2);
LLM_FROZEN(detokenize_flags, LLM_DETOKENIZE_RENDER_SPECIAL == 1);
LLM_FROZEN(version_number, LLM_VERSION_NUMBER == LLM_VERSION_MAJOR * 10000 +
                                                     LLM_VERSION_MINOR * 100 + LLM_VERSION_PATCH);

LLM_FROZEN(token_type, sizeof(llm_token) == 4 && (llm_token)-1 < 0);
LLM_FROZEN(status_type, sizeof(llm_status) == 4 && (llm_status)-1 < 0);

/* Every params struct starts with its size, so a library can tell which
 * fields a caller knows. */
#define LLM_FIELD(type, field, offset) LLM_FROZEN(type##_##field, offsetof(type, field) == (offset))
LLM_FIELD(llm_model_params, struct_size, 0);
LLM_FIELD(llm_context_params, struct_size, 0);
LLM_FIELD(llm_sampler_params, struct_size, 0);
LLM_FIELD(llm_generate_params, struct_size, 0);

/* Field offsets of 64-bit targets (LP64 and Windows' LLP64 agree). */
#if defined(UINTPTR_MAX) && UINTPTR_MAX > 0xffffffffu
LLM_FIELD(llm_model_params, tokenizer_path, 8);
LLM_FIELD(llm_model_params, weight_type, 16);
LLM_FIELD(llm_model_params, use_mmap, 20);

LLM_FIELD(llm_chat_message, role, 0);
LLM_FIELD(llm_chat_message, content, 8);
LLM_FROZEN(llm_chat_message_size, sizeof(llm_chat_message) == 16); /* used in arrays */

LLM_FIELD(llm_context_params, n_ctx, 4);
LLM_FIELD(llm_context_params, n_threads, 8);
LLM_FIELD(llm_context_params, kv_type, 12);
LLM_FIELD(llm_context_params, embeddings, 16); /* since 1.4 */
LLM_FROZEN(pooling, LLM_POOLING_DEFAULT == 0 && LLM_POOLING_NONE == 1 && LLM_POOLING_MEAN == 2 &&
                        LLM_POOLING_LAST == 3 && LLM_POOLING_FIRST == 4);

LLM_FIELD(llm_sampler_params, temperature, 4);
LLM_FIELD(llm_sampler_params, top_p, 8);
LLM_FIELD(llm_sampler_params, top_k, 12);
LLM_FIELD(llm_sampler_params, min_p, 16);
LLM_FIELD(llm_sampler_params, repeat_penalty, 20);
LLM_FIELD(llm_sampler_params, repeat_last_n, 24);
LLM_FIELD(llm_sampler_params, seed, 32);

LLM_FIELD(llm_generate_params, max_tokens, 4);
LLM_FIELD(llm_generate_params, stop_at_eog, 8);
#endif
