/* llm-run: generate text from a model, with llama2.c run's flags.
 * It uses only the public llm.h API. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli_common.h"

static void usage(void) {
    fprintf(
        stderr,
        "usage: llm-run MODEL [options]\n"
        "  MODEL        a llama2.c .bin checkpoint, a Hugging Face model folder or a .gguf file\n"
        "  -z PATH      tokenizer.bin for llama2.c checkpoints (default: beside the model)\n"
        "  -i PROMPT    the prompt (default: empty)\n"
        "  -n STEPS     positions to run, prompt included (default 256; 0 = the model's max)\n"
        "  -t TEMP      temperature, 0 = greedy (default 1.0)\n"
        "  -p TOPP      top-p nucleus (default 0.9)\n"
        "  -k TOPK      top-k, 0 = off (default 0)\n"
        "  -s SEED      random seed (default: time)\n"
        "  -y SYSTEM    system prompt (with --chat; default: the chat template's own)\n"
        "  -m TYPE      weights in memory: auto, f32, bf16, f16, q8_0, q4_0, q4_1, q5_0,\n"
        "               q5_1, q4_k, q5_k, q6_k (default auto: as the file holds them)\n"
        "  --threads N  compute threads (default: physical cores)\n"
        "  --kv-f16     store the KV cache in fp16 (half its memory)\n"
        "  --chat       wrap the prompt in the model's chat template\n"
        "  --special    parse special tokens written in the prompt\n"
        "  --ids        print token ids (prompt, then generated) instead of text\n");
    exit(1);
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void write_bytes(const char *text, size_t len) {
    fwrite(text, 1, len, stdout);
    fflush(stdout);
}

int main(int argc, char **argv) {
    const char *model_path = NULL, *tokenizer = NULL, *prompt = "", *system = NULL;
    int steps = 256, top_k = 0, threads = 0, chat = 0, special = 0, print_ids = 0, kv_f16 = 0;
    float temperature = 1.0f, top_p = 0.9f;
    unsigned long long seed = (unsigned long long)time(NULL);
    int32_t weight_type = LLM_WEIGHTS_AUTO;

    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--chat") == 0)
            chat = 1;
        else if (strcmp(a, "--special") == 0)
            special = 1;
        else if (strcmp(a, "--ids") == 0)
            print_ids = 1;
        else if (strcmp(a, "--kv-f16") == 0)
            kv_f16 = 1;
        else if (strcmp(a, "--threads") == 0 && v)
            threads = atoi(argv[++i]);
        else if (a[0] == '-' && strlen(a) == 2 && v) {
            ++i;
            switch (a[1]) {
            case 'z': tokenizer = v; break;
            case 'i': prompt = v; break;
            case 'n': steps = atoi(v); break;
            case 't': temperature = (float)atof(v); break;
            case 'p': top_p = (float)atof(v); break;
            case 'k': top_k = atoi(v); break;
            case 's': seed = strtoull(v, NULL, 10); break;
            case 'y': system = v; break;
            case 'm':
                weight_type = cli_weight_type(v);
                if (weight_type < 0) usage();
                break;
            default: usage();
            }
        } else if (a[0] != '-' && !model_path)
            model_path = a;
        else
            usage();
    }
    if (!model_path || steps < 0 || threads < 0) usage();

    llm_model *model = cli_load_model("llm-run", model_path, tokenizer, weight_type);
    const int n_ctx_max = llm_model_n_ctx_train(model);
    if (steps == 0 || steps > n_ctx_max) steps = n_ctx_max;

    /* The prompt text: plain, or formatted as a chat. */
    char *text = NULL;
    size_t text_len = strlen(prompt);
    int32_t flags = LLM_TOKENIZE_ADD_SPECIAL | (special ? LLM_TOKENIZE_PARSE_SPECIAL : 0);
    llm_status s;
    if (chat) {
        llm_chat_message msgs[2];
        size_t n_msgs = 0;
        if (system) msgs[n_msgs++] = (llm_chat_message){"system", system};
        msgs[n_msgs++] = (llm_chat_message){"user", prompt};
        s = llm_chat_format(model, msgs, n_msgs, 1, NULL, 0, &text_len);
        if (s != LLM_OK && s != LLM_ERR_BUFFER_TOO_SMALL) cli_die("llm-run", "chat template", s);
        text = malloc(text_len + 1);
        if (!text) return 1;
        s = llm_chat_format(model, msgs, n_msgs, 1, text, text_len, &text_len);
        if (s != LLM_OK) cli_die("llm-run", "chat template", s);
        flags |= LLM_TOKENIZE_PARSE_SPECIAL;
    }
    const char *input = text ? text : prompt;

    size_t n_prompt = 0;
    s = llm_tokenize(model, input, text_len, flags, NULL, 0, &n_prompt);
    if (s != LLM_OK && s != LLM_ERR_BUFFER_TOO_SMALL) cli_die("llm-run", "tokenize", s);
    llm_token *ids = malloc(((size_t)steps + n_prompt + 1) * sizeof *ids);
    if (!ids) return 1;
    s = llm_tokenize(model, input, text_len, flags, ids, n_prompt, &n_prompt);
    if (s != LLM_OK) cli_die("llm-run", "tokenize", s);
    if (n_prompt == 0) {
        fprintf(stderr, "llm-run: the prompt is empty and the model adds no BOS token\n");
        return 1;
    }
    if (n_prompt > (size_t)steps) {
        fprintf(stderr, "llm-run: the prompt has %zu tokens but -n allows %d\n", n_prompt, steps);
        return 1;
    }

    llm_context_params cp = llm_context_default_params();
    cp.n_ctx = steps;
    cp.n_threads = threads;
    cp.kv_type = kv_f16 ? LLM_KV_F16 : LLM_KV_F32;
    llm_context *ctx = NULL;
    if ((s = llm_context_new(model, &cp, &ctx)) != LLM_OK) cli_die("llm-run", "context", s);
    llm_sampler_params sp = llm_sampler_default_params();
    sp.temperature = temperature;
    sp.top_p = top_p;
    sp.top_k = top_k;
    sp.seed = seed;
    llm_sampler *sampler = NULL;
    if ((s = llm_sampler_new(&sp, &sampler)) != LLM_OK) cli_die("llm-run", "sampler", s);

    /* Echo the prompt as run.c does (special tokens are not shown). */
    size_t cap = llm_context_step_max_bytes(ctx);
    char *piece = malloc(cap);
    llm_detokenizer *echo = NULL;
    if (!piece || llm_detokenizer_new(model, &echo) != LLM_OK) return 1;
    if (!print_ids && !chat) {
        for (size_t i = 0; i < n_prompt; ++i) {
            size_t len = 0;
            if (llm_detokenizer_push(echo, ids[i], piece, cap, &len) == LLM_OK)
                write_bytes(piece, len);
        }
    }

    double t0 = now_seconds();
    if ((s = llm_forward(ctx, ids, n_prompt)) != LLM_OK) cli_die("llm-run", "forward", s);
    double t_prompt = now_seconds();
    size_t n_ids = n_prompt, n_generated = 0;
    for (;;) {
        llm_token t;
        int32_t eog = 0;
        size_t len = 0;
        /* At the last position the token is still returned, then CONTEXT_FULL
         * (run.c likewise prints the token chosen at its last step). */
        s = llm_context_step(ctx, sampler, &t, &eog, piece, cap, &len);
        if (s != LLM_OK && s != LLM_ERR_CONTEXT_FULL) cli_die("llm-run", "generate", s);
        if (eog) break;
        ids[n_ids++] = t;
        ++n_generated;
        if (!print_ids) write_bytes(piece, len);
        if (s == LLM_ERR_CONTEXT_FULL) break;
    }
    double t1 = now_seconds();
    if (print_ids) {
        for (size_t i = 0; i < n_ids; ++i)
            printf(i ? " %d" : "%d", ids[i]);
    }
    printf("\n");
    fflush(stdout); /* the text before the stats when both go to one terminal */
    if (n_generated > 1 && t1 > t_prompt)
        fprintf(stderr, "prompt: %zu tokens, %.1f tok/s; generated: %zu tokens, %.1f tok/s (%s)\n",
                n_prompt, (double)n_prompt / (t_prompt - t0 + 1e-9), n_generated,
                (double)n_generated / (t1 - t_prompt), llm_system_info());
    free(piece);
    free(ids);
    free(text);
    llm_detokenizer_free(echo);
    llm_sampler_free(sampler);
    llm_context_free(ctx);
    llm_model_free(model);
    return 0;
}
