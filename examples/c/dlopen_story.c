/* Load libllm.so.1 at run time with dlopen, as plugin hosts do, and resolve
 * each function by name. Only llm.h's types are used; no link-time
 * dependency on libllm.
 *
 *   example-dlopen LIBRARY MODEL [TOKENIZER]
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "llm.h"

#define RESOLVE(var, name)                                                                         \
    do {                                                                                           \
        *(void **)(&var) = dlsym(lib, name);                                                       \
        if (!var) {                                                                                \
            fprintf(stderr, "missing symbol %s\n", name);                                          \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

/* Streams each piece to stdout; returning 0 keeps generating. */
static int32_t print_piece(const char *text, size_t len, llm_token token, void *user_data) {
    (void)token;
    (void)user_data;
    fwrite(text, 1, len, stdout);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s LIBRARY MODEL [TOKENIZER]\n", argv[0]);
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    int32_t (*version_number)(void);
    llm_model_params (*model_default_params)(void);
    llm_status (*model_load)(const char *, const llm_model_params *, llm_model **);
    void (*model_free)(llm_model *);
    const char *(*last_error)(void);
    llm_status (*context_new)(const llm_model *, const llm_context_params *, llm_context **);
    void (*context_free)(llm_context *);
    llm_sampler_params (*sampler_default_params)(void);
    llm_status (*sampler_new)(const llm_sampler_params *, llm_sampler **);
    void (*sampler_free)(llm_sampler *);
    llm_status (*tokenize)(const llm_model *, const char *, size_t, int32_t, llm_token *, size_t,
                           size_t *);
    llm_status (*generate)(llm_context *, llm_sampler *, const llm_token *, size_t,
                           const llm_generate_params *, llm_piece_callback, void *, int32_t *);
    llm_generate_params (*generate_default_params)(void);
    RESOLVE(version_number, "llm_version_number");
    RESOLVE(model_default_params, "llm_model_default_params");
    RESOLVE(model_load, "llm_model_load");
    RESOLVE(model_free, "llm_model_free");
    RESOLVE(last_error, "llm_last_error");
    RESOLVE(context_new, "llm_context_new");
    RESOLVE(context_free, "llm_context_free");
    RESOLVE(sampler_default_params, "llm_sampler_default_params");
    RESOLVE(sampler_new, "llm_sampler_new");
    RESOLVE(sampler_free, "llm_sampler_free");
    RESOLVE(tokenize, "llm_tokenize");
    RESOLVE(generate, "llm_generate");
    RESOLVE(generate_default_params, "llm_generate_default_params");

    /* A library of another major version has another ABI. */
    if (version_number() / 10000 != LLM_VERSION_MAJOR) {
        fprintf(stderr, "libllm major version %d, expected %d\n", version_number() / 10000,
                LLM_VERSION_MAJOR);
        return 1;
    }

    llm_model_params mp = model_default_params();
    mp.tokenizer_path = argc > 3 ? argv[3] : NULL;
    llm_model *model = NULL;
    if (model_load(argv[2], &mp, &model) != LLM_OK) {
        fprintf(stderr, "load: %s\n", last_error());
        return 1;
    }
    llm_token ids[64];
    size_t n = 0;
    const char *prompt = "Once upon a time";
    tokenize(model, prompt, strlen(prompt), LLM_TOKENIZE_ADD_SPECIAL, ids, 64, &n);

    llm_context *ctx = NULL;
    llm_sampler *sampler = NULL;
    llm_sampler_params sp = sampler_default_params();
    sp.temperature = 0.0f;
    context_new(model, NULL, &ctx);
    sampler_new(&sp, &sampler);
    llm_generate_params gp = generate_default_params();
    gp.max_tokens = 100;
    fputs(prompt, stdout);
    llm_status s = generate(ctx, sampler, ids, n, &gp, print_piece, NULL, NULL);
    printf("\n");
    if (s != LLM_OK && s != LLM_ERR_CONTEXT_FULL) {
        fprintf(stderr, "generate: %s\n", last_error());
        return 1;
    }
    sampler_free(sampler);
    context_free(ctx);
    model_free(model);
    dlclose(lib);
    return 0;
}
