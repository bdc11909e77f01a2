-- Generated from include/llm.h by bindings/lua/gen_llm_h.lua. Do not edit.
-- The C declarations for LuaJIT's ffi.cdef, and the header's constants.
return {
  cdef = [[
const char *llm_version(void);
int32_t llm_version_number(void);

const char *llm_system_info(void);

typedef int32_t llm_status;

const char *llm_status_str(llm_status status);

const char *llm_last_error(void);

typedef void (*llm_log_callback)(int32_t level, const char *message, void *user_data);

void llm_log_set(llm_log_callback callback, void *user_data, int32_t min_level);

typedef int32_t llm_token;

typedef struct llm_model llm_model;

typedef struct llm_model_params {
    uint32_t struct_size;
    const char *tokenizer_path;
    int32_t weight_type;
    int32_t use_mmap;
} llm_model_params;

llm_model_params llm_model_default_params(void);

llm_status llm_model_load(const char *path, const llm_model_params *params,
                                  llm_model **out);
void llm_model_free(llm_model *model);

int32_t llm_model_n_vocab(const llm_model *model);
int32_t llm_model_n_ctx_train(const llm_model *model);
int32_t llm_model_n_embd(const llm_model *model);
int32_t llm_model_n_layer(const llm_model *model);
int32_t llm_model_n_head(const llm_model *model);
int32_t llm_model_n_head_kv(const llm_model *model);
int64_t llm_model_n_params(const llm_model *model);
int64_t llm_model_weight_bytes(const llm_model *model);
int32_t llm_model_weight_type(const llm_model *model);
const char *llm_model_arch(const llm_model *model);
int32_t llm_model_meta_count(const llm_model *model);
llm_status llm_model_meta_key(const llm_model *model, int32_t index, char *buf, size_t cap,
                                      size_t *needed);
llm_status llm_model_meta_value(const llm_model *model, const char *key, char *buf,
                                        size_t cap, size_t *needed);
const char *llm_weight_type_name(int32_t weight_type);
int32_t llm_weight_type_from_name(const char *name);
llm_token llm_model_bos(const llm_model *model);
llm_token llm_model_eos(const llm_model *model);
int32_t llm_token_is_eog(const llm_model *model, llm_token token);
int32_t llm_token_is_special(const llm_model *model, llm_token token);

llm_status llm_tokenize(const llm_model *model, const char *text, size_t text_len,
                                int32_t flags, llm_token *out, size_t cap, size_t *n_out);

llm_status llm_token_to_piece(const llm_model *model, llm_token token, char *buf,
                                      size_t cap, size_t *n_out);

llm_status llm_detokenize(const llm_model *model, const llm_token *tokens, size_t n_tokens,
                                  int32_t flags, char *buf, size_t cap, size_t *n_out);

typedef struct llm_detokenizer llm_detokenizer;

llm_status llm_detokenizer_new(const llm_model *model, llm_detokenizer **out);
void llm_detokenizer_free(llm_detokenizer *d);
llm_status llm_detokenizer_push(llm_detokenizer *d, llm_token token, char *buf, size_t cap,
                                        size_t *n_out);
llm_status llm_detokenizer_flush(llm_detokenizer *d, char *buf, size_t cap, size_t *n_out);
void llm_detokenizer_reset(llm_detokenizer *d);
size_t llm_detokenizer_max_bytes(const llm_detokenizer *d);

typedef struct llm_chat_message {
    const char *role;
    const char *content;
} llm_chat_message;

llm_status llm_chat_format(const llm_model *model, const llm_chat_message *messages,
                                   size_t n_messages, int32_t add_assistant, char *buf, size_t cap,
                                   size_t *n_out);

typedef struct llm_chat_params {
    uint32_t struct_size;
    const char *template_override;
    const char *tools_json;
    const char *extra_vars_json;
    int32_t add_generation_prompt;
} llm_chat_params;

llm_chat_params llm_chat_default_params(void);

llm_status llm_chat_apply(const llm_model *model, const char *messages_json,
                                  const llm_chat_params *params, char *buf, size_t cap,
                                  size_t *n_out);

llm_status llm_model_chat_template(const llm_model *model, char *buf, size_t cap,
                                           size_t *n_out);

llm_status llm_chat_parse(const llm_model *model, const char *text, size_t len,
                                  char *json_buf, size_t cap, size_t *n_out);

typedef struct llm_context llm_context;

typedef struct llm_context_params {
    uint32_t struct_size;
    int32_t n_ctx;
    int32_t n_threads;
    int32_t kv_type;
    int32_t embeddings;
} llm_context_params;

llm_context_params llm_context_default_params(void);

llm_status llm_context_new(const llm_model *model, const llm_context_params *params,
                                   llm_context **out);
void llm_context_free(llm_context *ctx);

llm_status llm_forward(llm_context *ctx, const llm_token *tokens, size_t n_tokens);

int32_t llm_context_position(const llm_context *ctx);
int32_t llm_context_n_ctx(const llm_context *ctx);
const float *llm_context_logits(const llm_context *ctx);
llm_status llm_context_copy_logits(const llm_context *ctx, float *buf, size_t cap,
                                           size_t *n_out);
llm_status llm_context_tokens(const llm_context *ctx, llm_token *buf, size_t cap,
                                      size_t *n_out);
llm_status llm_context_rewind(llm_context *ctx, int32_t position);
void llm_context_reset(llm_context *ctx);

void llm_context_cancel(llm_context *ctx);

llm_status llm_context_state_size(const llm_context *ctx, size_t *out);
llm_status llm_context_state_save(const llm_context *ctx, void *buf, size_t cap,
                                          size_t *n_out);
llm_status llm_context_state_load(llm_context *ctx, const void *buf, size_t len);
llm_status llm_context_state_save_file(const llm_context *ctx, const char *path);
llm_status llm_context_state_load_file(llm_context *ctx, const char *path);

llm_status llm_context_copy_prefix(llm_context *dst, const llm_context *src,
                                           int32_t n_tokens);

int32_t llm_model_default_pooling(const llm_model *model);

llm_status llm_embed(llm_context *ctx, const llm_token *tokens, size_t n_tokens,
                             int32_t pooling, int32_t normalize, float *buf, size_t cap,
                             size_t *n_out);

typedef struct llm_sampler llm_sampler;

typedef struct llm_sampler_params {
    uint32_t struct_size;
    float temperature;
    float top_p;
    int32_t top_k;
    float min_p;
    float repeat_penalty;
    int32_t repeat_last_n;
    uint64_t seed;
} llm_sampler_params;

llm_sampler_params llm_sampler_default_params(void);
llm_status llm_sampler_new(const llm_sampler_params *params, llm_sampler **out);
void llm_sampler_free(llm_sampler *sampler);
void llm_sampler_reseed(llm_sampler *sampler, uint64_t seed);

llm_status llm_sample(llm_sampler *sampler, const llm_context *ctx, llm_token *out);

llm_status llm_sampler_set_grammar(llm_sampler *sampler, const llm_model *model,
                                           const char *gbnf, const char *root_rule);
llm_status llm_sampler_set_json_schema(llm_sampler *sampler, const llm_model *model,
                                               const char *schema_json);
llm_status llm_sampler_clear_grammar(llm_sampler *sampler);

llm_status llm_context_step(llm_context *ctx, llm_sampler *sampler, llm_token *out_token,
                                    int32_t *out_eog, char *buf, size_t cap, size_t *n_out);
size_t llm_context_step_max_bytes(const llm_context *ctx);

typedef int32_t (*llm_piece_callback)(const char *text, size_t text_len, llm_token token,
                                      void *user_data);

typedef struct llm_generate_params {
    uint32_t struct_size;
    int32_t max_tokens;
    int32_t stop_at_eog;
} llm_generate_params;

llm_generate_params llm_generate_default_params(void);

llm_status llm_generate(llm_context *ctx, llm_sampler *sampler, const llm_token *prompt,
                                size_t n_prompt, const llm_generate_params *params,
                                llm_piece_callback callback, void *user_data, int32_t *n_generated);

llm_status llm_decode_batch(llm_context *const *ctxs, const llm_token *tokens, size_t n,
                                    llm_status *out_status);

llm_status llm_step_batch(llm_context *const *ctxs, llm_sampler *const *samplers, size_t n,
                                  llm_token *out_tokens, int32_t *out_eog, llm_status *out_status);
]],
  constants = {
    LLM_VERSION_MAJOR = 1,
    LLM_VERSION_MINOR = 5,
    LLM_VERSION_PATCH = 0,
    LLM_VERSION_STRING = "1.5.0",
    LLM_VERSION_NUMBER = 10500,
    LLM_OK = 0,
    LLM_ERR_INVALID_ARGUMENT = -1,
    LLM_ERR_NOT_FOUND = -2,
    LLM_ERR_IO = -3,
    LLM_ERR_TRUNCATED = -4,
    LLM_ERR_SIZE_MISMATCH = -5,
    LLM_ERR_BAD_DIMENSIONS = -6,
    LLM_ERR_FORMAT = -7,
    LLM_ERR_TOKENIZER_MISMATCH = -8,
    LLM_ERR_UNSUPPORTED = -9,
    LLM_ERR_TOKEN_OUT_OF_RANGE = -10,
    LLM_ERR_CONTEXT_FULL = -11,
    LLM_ERR_BUFFER_TOO_SMALL = -12,
    LLM_ERR_CANCELLED = -13,
    LLM_ERR_OUT_OF_MEMORY = -14,
    LLM_ERR_INTERNAL = -15,
    LLM_ERR_TEMPLATE = -16,
    LLM_ERR_GRAMMAR = -17,
    LLM_ERR_STATE_MISMATCH = -18,
    LLM_LOG_DEBUG = 0,
    LLM_LOG_INFO = 1,
    LLM_LOG_WARN = 2,
    LLM_LOG_ERROR = 3,
    LLM_TOKEN_NONE = -1,
    LLM_WEIGHTS_AUTO = 0,
    LLM_WEIGHTS_F32 = 1,
    LLM_WEIGHTS_BF16 = 2,
    LLM_WEIGHTS_F16 = 3,
    LLM_WEIGHTS_Q8_0 = 4,
    LLM_WEIGHTS_Q4_0 = 5,
    LLM_WEIGHTS_Q4_1 = 6,
    LLM_WEIGHTS_Q5_0 = 7,
    LLM_WEIGHTS_Q5_1 = 8,
    LLM_WEIGHTS_Q4_K = 9,
    LLM_WEIGHTS_Q5_K = 10,
    LLM_WEIGHTS_Q6_K = 11,
    LLM_TOKENIZE_ADD_SPECIAL = 1,
    LLM_TOKENIZE_PARSE_SPECIAL = 2,
    LLM_DETOKENIZE_RENDER_SPECIAL = 1,
    LLM_KV_F32 = 0,
    LLM_KV_F16 = 1,
    LLM_POOLING_DEFAULT = 0,
    LLM_POOLING_NONE = 1,
    LLM_POOLING_MEAN = 2,
    LLM_POOLING_LAST = 3,
    LLM_POOLING_FIRST = 4,
  },
}
