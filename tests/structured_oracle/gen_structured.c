/* Generates JSON under each corpus schema with llm_sampler_set_json_schema,
 * for seeds 1..SEEDS at temperature 1 without top-p (every token the grammar
 * allows can be drawn), and writes one JSON line per run:
 *   {"schema": "FILE", "seed": N, "terminated": true, "tokens": N, "output_hex": "..."}
 * "terminated" is true when the model ended with an end-of-generation token
 * (the grammar allows one only once the JSON is complete), false when the
 * context ran full first. check_structured.js validates the lines with ajv.
 *
 *   gen_structured MODEL OUT.jsonl POSITIONS SEEDS SCHEMA.json...
 *
 * Only llm.h is used. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm.h"

static const char kPrompt[] = "Answer in JSON:";

static void die(const char *what, const char *detail) {
    fprintf(stderr, "gen_structured: %s: %s\n", what, detail);
    exit(1);
}

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) die("cannot open", path);
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    if (!buf) die("out of memory", path);
    size_t got;
    while ((got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (cap - len <= 1) {
            char *bigger = realloc(buf, cap *= 2);
            if (!bigger) die("out of memory", path);
            buf = bigger;
        }
    }
    fclose(f);
    buf[len] = 0;
    return buf;
}

static void put_json_string(FILE *out, const char *s) {
    fputc('"', out);
    for (; *s; ++s) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

int main(int argc, char **argv) {
    if (argc < 6) {
        fprintf(stderr, "usage: gen_structured MODEL OUT.jsonl POSITIONS SEEDS SCHEMA.json...\n");
        return 1;
    }
    const int positions = atoi(argv[3]), seeds = atoi(argv[4]);
    if (positions < 16 || seeds < 1) die("bad arguments", "POSITIONS >= 16, SEEDS >= 1");
    llm_model *model = NULL;
    llm_model_params mp = llm_model_default_params();
    if (llm_model_load(argv[1], &mp, &model) != LLM_OK) die(argv[1], llm_last_error());
    FILE *out = fopen(argv[2], "wb");
    if (!out) die("cannot write", argv[2]);

    llm_context_params cp = llm_context_default_params();
    cp.n_ctx = positions;
    cp.n_threads = 1;
    llm_context *ctx = NULL;
    if (llm_context_new(model, &cp, &ctx) != LLM_OK) die("context", llm_last_error());
    const size_t cap = llm_context_step_max_bytes(ctx);
    char *piece = malloc(cap);
    llm_token prompt[64];
    size_t n_prompt = 0;
    if (!piece || llm_tokenize(model, kPrompt, strlen(kPrompt), LLM_TOKENIZE_ADD_SPECIAL, prompt,
                               64, &n_prompt) != LLM_OK)
        die("tokenize", llm_last_error());

    size_t text_cap = 1 << 16;
    char *text = malloc(text_cap);
    if (!text) die("out of memory", "output");
    for (int a = 5; a < argc; ++a) {
        char *schema = read_file(argv[a]);
        const char *name = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
        for (int seed = 1; seed <= seeds; ++seed) {
            llm_sampler_params sp = llm_sampler_default_params();
            sp.temperature = 1.0f;
            sp.top_p = 1.0f;
            sp.seed = (uint64_t)seed;
            llm_sampler *sampler = NULL;
            if (llm_sampler_new(&sp, &sampler) != LLM_OK) die("sampler", llm_last_error());
            if (llm_sampler_set_json_schema(sampler, model, schema) != LLM_OK)
                die(name, llm_last_error());
            llm_context_reset(ctx);
            if (llm_forward(ctx, prompt, n_prompt) != LLM_OK) die("forward", llm_last_error());
            size_t len = 0, n_tokens = 0;
            int terminated = 0;
            for (;;) {
                llm_token t;
                int32_t eog = 0;
                size_t n = 0;
                llm_status s = llm_context_step(ctx, sampler, &t, &eog, piece, cap, &n);
                if (s != LLM_OK && s != LLM_ERR_CONTEXT_FULL) {
                    fprintf(stderr, "gen_structured: %s seed %d: step: %s\n", name, seed,
                            llm_last_error());
                    break;
                }
                if (eog) {
                    terminated = 1;
                    break;
                }
                ++n_tokens;
                if (len + n + 1 > text_cap) {
                    char *bigger = realloc(text, text_cap = 2 * (len + n + 1));
                    if (!bigger) die("out of memory", "output");
                    text = bigger;
                }
                memcpy(text + len, piece, n);
                len += n;
                if (s == LLM_ERR_CONTEXT_FULL) break;
            }
            fprintf(out, "{\"schema\": ");
            put_json_string(out, name);
            fprintf(out, ", \"seed\": %d, \"terminated\": %s, \"tokens\": %zu, \"output_hex\": \"",
                    seed, terminated ? "true" : "false", n_tokens);
            for (size_t i = 0; i < len; ++i)
                fprintf(out, "%02x", (unsigned char)text[i]);
            fprintf(out, "\"}\n");
            fflush(out);
            llm_sampler_free(sampler);
        }
        free(schema);
    }
    free(text);
    free(piece);
    fclose(out);
    llm_context_free(ctx);
    llm_model_free(model);
    return 0;
}
