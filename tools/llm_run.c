/* llm-run: generate text from a model, with llama2.c run's flags.
 * It uses only the public llm.h API. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _WIN32
#include <io.h>
#define stdin_is_terminal() _isatty(_fileno(stdin))
#else
#include <unistd.h>
#define stdin_is_terminal() isatty(fileno(stdin))
#endif

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
        "  --chat       wrap the prompt in the model's chat template; without -i and with\n"
        "               stdin a terminal, an interactive chat\n"
        "  --interactive  multi-turn chat: one user message per line of stdin (-i: the\n"
        "               first), answers rendered with the model's template\n"
        "  --turn-tokens N  interactive chat: tokens per answer at most (default: until\n"
        "               the end of the turn)\n"
        "  --special    parse special tokens written in the prompt\n"
        "  --ids        print token ids (prompt, then generated) instead of text\n"
        "  --grammar FILE      constrain the output to a GBNF grammar (root rule \"root\")\n"
        "  --json-schema FILE  constrain the output to JSON valid under a JSON Schema\n");
    exit(1);
}

/* The whole of a (grammar) file as a NUL-terminated string; exits on error. */
static char *read_text_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "llm-run: cannot open %s\n", path);
        exit(1);
    }
    size_t len = 0, cap = 4096;
    char *data = malloc(cap);
    for (size_t n; data && (n = fread(data + len, 1, cap - len - 1, f)) > 0;) {
        len += n;
        if (cap - len - 1 == 0) {
            char *p = realloc(data, cap *= 2);
            if (!p) free(data);
            data = p;
        }
    }
    if (!data || ferror(f)) {
        fprintf(stderr, "llm-run: cannot read %s\n", path);
        exit(1);
    }
    fclose(f);
    data[len] = '\0';
    return data;
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

/* ---- interactive chat ---- */

/* A growing byte string. Exits on allocation failure. */
typedef struct {
    char *data;
    size_t len, cap;
} text_buf;

static void buf_append(text_buf *b, const char *s, size_t n) {
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = realloc(b->data, cap);
        if (!p) {
            fprintf(stderr, "llm-run: out of memory\n");
            exit(1);
        }
        b->data = p;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

static void buf_puts(text_buf *b, const char *s) {
    buf_append(b, s, strlen(s));
}

/* Appends s as a JSON string literal. */
static void buf_json_string(text_buf *b, const char *s, size_t n) {
    buf_puts(b, "\"");
    for (size_t i = 0; i < n; ++i) {
        unsigned char c = (unsigned char)s[i];
        char esc[8];
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            buf_append(b, esc, 2);
        } else if (c < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", c);
            buf_puts(b, esc);
        } else {
            buf_append(b, (const char *)&c, 1);
        }
    }
    buf_puts(b, "\"");
}

/* Appends {"role":...,"content":...} to the JSON array of messages. */
static void add_message(text_buf *msgs, const char *role, const char *content, size_t n) {
    buf_puts(msgs, msgs->len > 1 ? "," : "");
    buf_puts(msgs, "{\"role\":\"");
    buf_puts(msgs, role);
    buf_puts(msgs, "\",\"content\":");
    buf_json_string(msgs, content, n);
    buf_puts(msgs, "}");
}

/* Reads one line of stdin without its line ending. 0 at end of input. */
static int read_line(text_buf *line) {
    line->len = 0;
    char chunk[1024];
    int any = 0;
    while (fgets(chunk, sizeof chunk, stdin)) {
        any = 1;
        size_t n = strlen(chunk);
        int done = n > 0 && chunk[n - 1] == '\n';
        buf_append(line, chunk, n);
        if (done) break;
    }
    while (line->len && (line->data[line->len - 1] == '\n' || line->data[line->len - 1] == '\r'))
        line->data[--line->len] = '\0';
    if (!line->data) buf_puts(line, "");
    return any;
}

/* Prints the answer from *printed on, with the reasoning of a <think> block
 * set apart by visible markers. A tail that may be the start of a tag waits
 * for more text unless final. */
static void print_answer(const char *text, size_t len, size_t *printed, int final) {
    static const char *const tags[2] = {"<think>", "</think>"};
    static const char *const shown[2] = {"[thinking]\n", "\n[/thinking]\n"};
    size_t i = *printed, start = i;
    while (i < len) {
        if (text[i] != '<') {
            ++i;
            continue;
        }
        int matched = -1, partial = 0;
        for (int t = 0; t < 2; ++t) {
            size_t tl = strlen(tags[t]), avail = len - i;
            if (avail >= tl && memcmp(text + i, tags[t], tl) == 0)
                matched = t;
            else if (avail < tl && memcmp(text + i, tags[t], avail) == 0)
                partial = 1;
        }
        if (matched >= 0) {
            write_bytes(text + start, i - start);
            write_bytes(shown[matched], strlen(shown[matched]));
            i += strlen(tags[matched]);
            start = i;
        } else if (partial && !final) {
            break;
        } else {
            ++i;
        }
    }
    write_bytes(text + start, i - start);
    *printed = i;
}

/* The rendered conversation's tokens: the model's template, special tokens
 * parsed, BOS added as the tokenizer does unless the template wrote it. */
static llm_token *render_tokens(llm_model *model, const char *messages_json, size_t *n_ids) {
    llm_chat_params cp = llm_chat_default_params();
    size_t n = 0;
    llm_status s = llm_chat_apply(model, messages_json, &cp, NULL, 0, &n);
    if (s != LLM_OK && s != LLM_ERR_BUFFER_TOO_SMALL) cli_die("llm-run", "chat template", s);
    char *text = malloc(n + 1);
    if (!text) exit(1);
    if ((s = llm_chat_apply(model, messages_json, &cp, text, n, &n)) != LLM_OK)
        cli_die("llm-run", "chat template", s);
    const int32_t flags = LLM_TOKENIZE_ADD_SPECIAL | LLM_TOKENIZE_PARSE_SPECIAL;
    size_t count = 0;
    s = llm_tokenize(model, text, n, flags, NULL, 0, &count);
    if (s != LLM_OK && s != LLM_ERR_BUFFER_TOO_SMALL) cli_die("llm-run", "tokenize", s);
    llm_token *ids = malloc((count + 1) * sizeof *ids);
    if (!ids) exit(1);
    if ((s = llm_tokenize(model, text, n, flags, ids, count, &count)) != LLM_OK)
        cli_die("llm-run", "tokenize", s);
    free(text);
    const llm_token bos = llm_model_bos(model);
    if (count >= 2 && ids[0] == bos && ids[1] == bos) memmove(ids, ids + 1, --count * sizeof *ids);
    *n_ids = count;
    return ids;
}

/* Multi-turn chat: each line of stdin is a user message; the conversation is
 * rendered whole with the model's template each turn, and only the part the
 * KV cache does not hold yet is run. */
static int chat_interactive(llm_model *model, llm_context *ctx, llm_sampler *sampler,
                            const char *system, const char *first, int turn_tokens) {
    const int terminal = stdin_is_terminal();
    const int32_t n_ctx = llm_context_n_ctx(ctx);
    text_buf msgs = {0}, line = {0}, answer = {0};
    buf_puts(&msgs, "[");
    if (system) add_message(&msgs, "system", system, strlen(system));
    llm_token *cached = malloc((size_t)n_ctx * sizeof *cached);
    size_t cap = llm_context_step_max_bytes(ctx);
    char *piece = malloc(cap);
    if (!cached || !piece) return 1;
    int rc = 0;
    for (int turn = 0;; ++turn) {
        if (turn == 0 && first && *first) {
            line.len = 0;
            buf_puts(&line, first);
        } else {
            if (terminal) {
                fputs("> ", stdout);
                fflush(stdout);
            }
            if (!read_line(&line)) break;
            if (line.len == 0) continue;
        }
        if (!terminal) { /* a transcript: the user's line, then the answer */
            write_bytes("> ", 2);
            write_bytes(line.data, line.len);
            write_bytes("\n", 1);
        }
        size_t keep = msgs.len; /* to drop the turn if it does not fit */
        add_message(&msgs, "user", line.data, line.len);
        buf_puts(&msgs, "]");
        size_t n_ids = 0;
        llm_token *ids = render_tokens(model, msgs.data, &n_ids);
        msgs.data[--msgs.len] = '\0';
        if (n_ids >= (size_t)n_ctx) {
            fprintf(stderr,
                    "llm-run: the conversation (%zu tokens) no longer fits in the "
                    "context (%d, -n)\n",
                    n_ids, n_ctx);
            free(ids);
            msgs.len = keep;
            msgs.data[keep] = '\0';
            rc = 1;
            break;
        }
        /* Keep the cache's common prefix with the new rendering. */
        size_t n_cached = 0;
        llm_status s = llm_context_tokens(ctx, cached, (size_t)n_ctx, &n_cached);
        if (s != LLM_OK) cli_die("llm-run", "context tokens", s);
        size_t common = 0;
        while (common < n_cached && common < n_ids && cached[common] == ids[common])
            ++common;
        if (common == n_ids) --common; /* at least one token runs, for the logits */
        if ((s = llm_context_rewind(ctx, (int32_t)common)) != LLM_OK)
            cli_die("llm-run", "rewind", s);
        if ((s = llm_forward(ctx, ids + common, n_ids - common)) != LLM_OK)
            cli_die("llm-run", "forward", s);
        free(ids);

        answer.len = 0;
        buf_puts(&answer, "");
        size_t printed = 0;
        for (int n_answer = 0; turn_tokens <= 0 || n_answer < turn_tokens; ++n_answer) {
            llm_token t;
            int32_t eog = 0;
            size_t len = 0;
            s = llm_context_step(ctx, sampler, &t, &eog, piece, cap, &len);
            if (s != LLM_OK && s != LLM_ERR_CONTEXT_FULL) cli_die("llm-run", "generate", s);
            if (eog) break;
            buf_append(&answer, piece, len);
            print_answer(answer.data, answer.len, &printed, 0);
            if (s == LLM_ERR_CONTEXT_FULL) break;
        }
        print_answer(answer.data, answer.len, &printed, 1);
        write_bytes("\n", 1);
        add_message(&msgs, "assistant", answer.data, answer.len);
        if (llm_context_position(ctx) >= n_ctx) {
            fprintf(stderr, "llm-run: the context is full (-n %d)\n", n_ctx);
            rc = 1;
            break;
        }
    }
    free(msgs.data);
    free(line.data);
    free(answer.data);
    free(cached);
    free(piece);
    return rc;
}

int main(int argc, char **argv) {
    const char *model_path = NULL, *tokenizer = NULL, *prompt = "", *system = NULL;
    int steps = 256, top_k = 0, threads = 0, chat = 0, special = 0, print_ids = 0, kv_f16 = 0;
    int interactive = 0, prompt_given = 0, turn_tokens = 0;
    float temperature = 1.0f, top_p = 0.9f;
    unsigned long long seed = (unsigned long long)time(NULL);
    int32_t weight_type = LLM_WEIGHTS_AUTO;
    const char *grammar_file = NULL, *schema_file = NULL;

    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--chat") == 0)
            chat = 1;
        else if (strcmp(a, "--interactive") == 0)
            interactive = 1;
        else if (strcmp(a, "--special") == 0)
            special = 1;
        else if (strcmp(a, "--ids") == 0)
            print_ids = 1;
        else if (strcmp(a, "--kv-f16") == 0)
            kv_f16 = 1;
        else if (strcmp(a, "--turn-tokens") == 0 && v)
            turn_tokens = atoi(argv[++i]);
        else if (strcmp(a, "--threads") == 0 && v)
            threads = atoi(argv[++i]);
        else if (strcmp(a, "--grammar") == 0 && v)
            grammar_file = argv[++i];
        else if (strcmp(a, "--json-schema") == 0 && v)
            schema_file = argv[++i];
        else if (a[0] == '-' && strlen(a) == 2 && v) {
            ++i;
            switch (a[1]) {
            case 'z': tokenizer = v; break;
            case 'i':
                prompt = v;
                prompt_given = 1;
                break;
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
    if (chat && !prompt_given && !print_ids && stdin_is_terminal()) interactive = 1;

    if (interactive) {
        llm_context_params icp = llm_context_default_params();
        icp.n_ctx = steps;
        icp.n_threads = threads;
        icp.kv_type = kv_f16 ? LLM_KV_F16 : LLM_KV_F32;
        llm_sampler_params isp = llm_sampler_default_params();
        isp.temperature = temperature;
        isp.top_p = top_p;
        isp.top_k = top_k;
        isp.seed = seed;
        llm_context *ictx = NULL;
        llm_sampler *isampler = NULL;
        llm_status is;
        if ((is = llm_context_new(model, &icp, &ictx)) != LLM_OK) cli_die("llm-run", "context", is);
        if ((is = llm_sampler_new(&isp, &isampler)) != LLM_OK) cli_die("llm-run", "sampler", is);
        int rc = chat_interactive(model, ictx, isampler, system, prompt_given ? prompt : NULL,
                                  turn_tokens);
        llm_sampler_free(isampler);
        llm_context_free(ictx);
        llm_model_free(model);
        return rc;
    }

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
    if (grammar_file || schema_file) {
        char *g = read_text_file(grammar_file ? grammar_file : schema_file);
        s = grammar_file ? llm_sampler_set_grammar(sampler, model, g, NULL)
                         : llm_sampler_set_json_schema(sampler, model, g);
        free(g);
        if (s != LLM_OK) cli_die("llm-run", grammar_file ? "grammar" : "json schema", s);
    }

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
