/* llm-embed: print the embedding of a text (the model's final hidden
 * states, pooled and L2-normalised). It uses only the public llm.h API. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"

static void usage(void) {
    fprintf(stderr,
            "usage: llm-embed MODEL -i TEXT [options]\n"
            "  MODEL           a llama2.c .bin checkpoint, a Hugging Face model folder or a .gguf "
            "file\n"
            "  -i TEXT         the text to embed\n"
            "  -z PATH         tokenizer.bin for llama2.c checkpoints (default: beside the model)\n"
            "  --pooling MODE  mean, last, first or none (one vector per token); default: the\n"
            "                  model's (last for Qwen3-Embedding, else mean)\n"
            "  --no-normalize  leave the vector as it is (default: unit L2 norm)\n"
            "  --threads N     compute threads (default: physical cores)\n"
            "  --json          print JSON: {\"pooling\": ..., \"n_tokens\": ..., \"dim\": ...,\n"
            "                  \"embedding\": [...]} (rows of token vectors for none)\n"
            "Without --json: one line of space-separated floats per vector.\n");
    exit(1);
}

static int32_t pooling_from_name(const char *name) {
    if (strcmp(name, "mean") == 0) return LLM_POOLING_MEAN;
    if (strcmp(name, "last") == 0) return LLM_POOLING_LAST;
    if (strcmp(name, "first") == 0) return LLM_POOLING_FIRST;
    if (strcmp(name, "none") == 0) return LLM_POOLING_NONE;
    return -1;
}

static const char *pooling_name(int32_t pooling) {
    switch (pooling) {
    case LLM_POOLING_MEAN: return "mean";
    case LLM_POOLING_LAST: return "last";
    case LLM_POOLING_FIRST: return "first";
    default: return "none";
    }
}

static void print_row(const float *v, size_t n, int json) {
    for (size_t i = 0; i < n; ++i)
        printf(i ? (json ? ", %.9g" : " %.9g") : "%.9g", (double)v[i]);
}

int main(int argc, char **argv) {
    const char *model_path = NULL, *tokenizer = NULL, *text = NULL;
    int32_t pooling = LLM_POOLING_DEFAULT;
    int normalize = 1, json = 0, threads = 0;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--no-normalize") == 0) {
            normalize = 0;
        } else if (strcmp(a, "--json") == 0) {
            json = 1;
        } else if (strcmp(a, "--threads") == 0 && v) {
            threads = atoi(argv[++i]);
            if (threads < 1) usage();
        } else if (strcmp(a, "--pooling") == 0 && v) {
            pooling = pooling_from_name(argv[++i]);
            if (pooling < 0) usage();
        } else if (strcmp(a, "-i") == 0 && v) {
            text = argv[++i];
        } else if (strcmp(a, "-z") == 0 && v) {
            tokenizer = argv[++i];
        } else if (a[0] == '-' || model_path) {
            usage();
        } else {
            model_path = a;
        }
    }
    if (!model_path || !text) usage();

    llm_model *model = cli_load_model("llm-embed", model_path, tokenizer, LLM_WEIGHTS_AUTO);
    if (pooling == LLM_POOLING_DEFAULT) pooling = llm_model_default_pooling(model);
    size_t n_ids = 0;
    llm_status s =
        llm_tokenize(model, text, strlen(text), LLM_TOKENIZE_ADD_SPECIAL, NULL, 0, &n_ids);
    if (s != LLM_OK && s != LLM_ERR_BUFFER_TOO_SMALL) cli_die("llm-embed", "tokenize", s);
    if (n_ids == 0) {
        fprintf(stderr, "llm-embed: the text has no tokens\n");
        return 1;
    }
    llm_token *ids = malloc(n_ids * sizeof *ids);
    if (!ids) return 1;
    s = llm_tokenize(model, text, strlen(text), LLM_TOKENIZE_ADD_SPECIAL, ids, n_ids, &n_ids);
    if (s != LLM_OK) cli_die("llm-embed", "tokenize", s);

    llm_context_params cp = llm_context_default_params();
    cp.n_threads = threads;
    cp.embeddings = 1;
    /* Enough positions for the text (the model's maximum caps it). */
    cp.n_ctx = (int32_t)(n_ids < (size_t)llm_model_n_ctx_train(model)
                             ? n_ids
                             : (size_t)llm_model_n_ctx_train(model));
    llm_context *ctx = NULL;
    s = llm_context_new(model, &cp, &ctx);
    if (s != LLM_OK) cli_die("llm-embed", "cannot create context", s);

    size_t n_out = 0;
    s = llm_embed(ctx, ids, n_ids, pooling, normalize, NULL, 0, &n_out);
    if (s != LLM_OK && s != LLM_ERR_BUFFER_TOO_SMALL) cli_die("llm-embed", "embed", s);
    float *out = malloc(n_out * sizeof *out);
    if (!out) return 1;
    s = llm_embed(ctx, ids, n_ids, pooling, normalize, out, n_out, &n_out);
    if (s != LLM_OK) cli_die("llm-embed", "embed", s);

    const size_t dim = (size_t)llm_model_n_embd(model);
    const size_t rows = n_out / dim;
    if (json) {
        printf("{\"pooling\": \"%s\", \"normalized\": %s, \"n_tokens\": %zu, \"dim\": %zu, "
               "\"embedding\": ",
               pooling_name(pooling), normalize ? "true" : "false", n_ids, dim);
        if (pooling == LLM_POOLING_NONE) printf("[");
        for (size_t r = 0; r < rows; ++r) {
            printf(r ? ", [" : "[");
            print_row(out + r * dim, dim, 1);
            printf("]");
        }
        if (pooling == LLM_POOLING_NONE) printf("]");
        printf("}\n");
    } else {
        for (size_t r = 0; r < rows; ++r) {
            print_row(out + r * dim, dim, 0);
            printf("\n");
        }
    }
    free(out);
    free(ids);
    llm_context_free(ctx);
    llm_model_free(model);
    return 0;
}
