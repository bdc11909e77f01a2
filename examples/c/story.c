/* The smallest complete libllm program: load a model, feed a prompt, and
 * stream a greedy continuation.
 *
 *   example-story MODEL [PROMPT] [TOKENIZER]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm.h"

static int fail(const char *what, llm_status s) {
    fprintf(stderr, "%s: %s (%s)\n", what, llm_last_error(), llm_status_str(s));
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s MODEL [PROMPT] [TOKENIZER]\n", argv[0]);
        return 2;
    }
    const char *prompt = argc > 2 ? argv[2] : "Once upon a time";

    llm_model_params mp = llm_model_default_params();
    mp.tokenizer_path = argc > 3 ? argv[3] : NULL;
    llm_model *model = NULL;
    llm_status s = llm_model_load(argv[1], &mp, &model);
    if (s != LLM_OK) return fail("load", s);

    llm_token ids[512];
    size_t n = 0;
    s = llm_tokenize(model, prompt, strlen(prompt), LLM_TOKENIZE_ADD_SPECIAL, ids, 512, &n);
    if (s != LLM_OK) return fail("tokenize", s);

    llm_context *ctx = NULL;
    llm_sampler *sampler = NULL;
    llm_sampler_params sp = llm_sampler_default_params();
    sp.temperature = 0.0f; /* greedy */
    if ((s = llm_context_new(model, NULL, &ctx)) != LLM_OK) return fail("context", s);
    if ((s = llm_sampler_new(&sp, &sampler)) != LLM_OK) return fail("sampler", s);

    fputs(prompt, stdout);
    size_t cap = llm_context_step_max_bytes(ctx);
    char *piece = malloc(cap);
    s = llm_forward(ctx, ids, n);
    for (int i = 0; s == LLM_OK && i < 200; ++i) {
        llm_token t;
        int32_t eog = 0;
        size_t len = 0;
        s = llm_context_step(ctx, sampler, &t, &eog, piece, cap, &len);
        if (eog) break;
        fwrite(piece, 1, len, stdout);
    }
    putchar('\n');
    if (s != LLM_OK && s != LLM_ERR_CONTEXT_FULL) return fail("generate", s);

    free(piece);
    llm_sampler_free(sampler);
    llm_context_free(ctx);
    llm_model_free(model);
    return 0;
}
