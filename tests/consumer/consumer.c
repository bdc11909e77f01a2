/* A program that uses an installed libllm as any downstream project would:
 * through llm.h and the package metadata only (see CMakeLists.txt here and
 * the pkg-config build in tests/packaging/consumer_pkgconfig.cmake).
 *
 * It checks that the header it was compiled with and the library it runs
 * with are the same release, then prints PROMPT and a greedy continuation of
 * at most MAX_TOKENS tokens produced through llm_generate's callback.
 *
 *   llm-consumer MODEL TOKENIZER PROMPT MAX_TOKENS
 *
 * Paths are UTF-8 (llm.h's rule); on Windows the arguments are read as UTF-16
 * and converted, since main()'s argv uses the ANSI code page there. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm.h"

#ifdef _WIN32
#include <windows.h>

#include <shellapi.h>

/* argv as UTF-8, from the UTF-16 command line. Never freed: lives until exit. */
static char **utf8_argv(int *argc) {
    LPWSTR *wide = CommandLineToArgvW(GetCommandLineW(), argc);
    if (!wide) return NULL;
    char **argv = (char **)calloc((size_t)*argc + 1, sizeof(char *));
    for (int i = 0; argv && i < *argc; ++i) {
        int n = WideCharToMultiByte(CP_UTF8, 0, wide[i], -1, NULL, 0, NULL, NULL);
        argv[i] = (char *)malloc((size_t)n);
        if (!argv[i] || !WideCharToMultiByte(CP_UTF8, 0, wide[i], -1, argv[i], n, NULL, NULL))
            return NULL;
    }
    LocalFree(wide);
    return argv;
}
#endif

static int32_t print_piece(const char *text, size_t len, llm_token token, void *user_data) {
    (void)token;
    (void)user_data;
    fwrite(text, 1, len, stdout);
    return 0;
}

static int fail(const char *what, llm_status status) {
    fprintf(stderr, "llm-consumer: %s: %s (%s)\n", what, llm_last_error(), llm_status_str(status));
    return 1;
}

int main(int argc, char **argv) {
#ifdef _WIN32
    argv = utf8_argv(&argc);
    if (!argv) {
        fprintf(stderr, "llm-consumer: cannot read the command line\n");
        return 1;
    }
#endif
    if (argc != 5) {
        fprintf(stderr, "usage: llm-consumer MODEL TOKENIZER PROMPT MAX_TOKENS\n");
        return 2;
    }
    /* Installed header and library come from one build: they must agree. */
    if (strcmp(llm_version(), LLM_VERSION_STRING) != 0 ||
        llm_version_number() != LLM_VERSION_NUMBER) {
        fprintf(stderr, "llm-consumer: compiled against llm.h %s but running libllm %s\n",
                LLM_VERSION_STRING, llm_version());
        return 1;
    }
    const char *prompt = argv[3];

    llm_model_params mp = llm_model_default_params();
    mp.tokenizer_path = argv[2];
    llm_model *model = NULL;
    llm_status s = llm_model_load(argv[1], &mp, &model);
    if (s != LLM_OK) return fail("load", s);

    size_t n_prompt = 0;
    s = llm_tokenize(model, prompt, strlen(prompt), LLM_TOKENIZE_ADD_SPECIAL, NULL, 0, &n_prompt);
    if (s != LLM_ERR_BUFFER_TOO_SMALL && s != LLM_OK) return fail("tokenize", s);
    llm_token *ids = (llm_token *)malloc((n_prompt ? n_prompt : 1) * sizeof(llm_token));
    if (!ids) return fail("tokenize", LLM_ERR_OUT_OF_MEMORY);
    s = llm_tokenize(model, prompt, strlen(prompt), LLM_TOKENIZE_ADD_SPECIAL, ids, n_prompt,
                     &n_prompt);
    if (s != LLM_OK) return fail("tokenize", s);

    llm_context *ctx = NULL;
    if ((s = llm_context_new(model, NULL, &ctx)) != LLM_OK) return fail("context", s);
    llm_sampler_params sp = llm_sampler_default_params();
    sp.temperature = 0.0f;
    llm_sampler *sampler = NULL;
    if ((s = llm_sampler_new(&sp, &sampler)) != LLM_OK) return fail("sampler", s);

    llm_generate_params gp = llm_generate_default_params();
    gp.max_tokens = atoi(argv[4]);
    int32_t n_generated = 0;
    fputs(prompt, stdout);
    s = llm_generate(ctx, sampler, ids, n_prompt, &gp, print_piece, NULL, &n_generated);
    putchar('\n');
    if (s != LLM_OK) return fail("generate", s);
    if (n_generated <= 0) {
        fprintf(stderr, "llm-consumer: nothing was generated\n");
        return 1;
    }

    free(ids);
    llm_sampler_free(sampler);
    llm_context_free(ctx);
    llm_model_free(model);
    return 0;
}
