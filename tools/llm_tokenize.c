/* llm-tokenize MODEL TEXT: print the token ids of TEXT on one line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"

static void usage(void) {
    fprintf(stderr,
            "usage: llm-tokenize MODEL TEXT [options]\n"
            "  -z PATH     tokenizer.bin for llama2.c checkpoints (default: beside the model)\n"
            "  --no-bos    leave out BOS/EOS that the model's tokenizer would add\n"
            "  --special   parse special tokens written in TEXT (e.g. <|im_start|>)\n");
    exit(1);
}

int main(int argc, char **argv) {
    const char *model_path = NULL, *text = NULL, *tokenizer = NULL;
    int32_t flags = LLM_TOKENIZE_ADD_SPECIAL;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--no-bos") == 0) {
            flags &= ~LLM_TOKENIZE_ADD_SPECIAL;
        } else if (strcmp(argv[i], "--special") == 0) {
            flags |= LLM_TOKENIZE_PARSE_SPECIAL;
        } else if (strcmp(argv[i], "-z") == 0 && i + 1 < argc) {
            tokenizer = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1] != '\0' && model_path && !text) {
            usage();
        } else if (!model_path) {
            model_path = argv[i];
        } else if (!text) {
            text = argv[i];
        } else {
            usage();
        }
    }
    if (!model_path || !text) usage();
    llm_model *model = cli_load_model("llm-tokenize", model_path, tokenizer, LLM_WEIGHTS_AUTO);
    size_t n = 0;
    llm_status s = llm_tokenize(model, text, strlen(text), flags, NULL, 0, &n);
    if (s != LLM_OK && s != LLM_ERR_BUFFER_TOO_SMALL) cli_die("llm-tokenize", "tokenize", s);
    llm_token *ids = malloc((n ? n : 1) * sizeof *ids);
    if (!ids) return 1;
    s = llm_tokenize(model, text, strlen(text), flags, ids, n, &n);
    if (s != LLM_OK) cli_die("llm-tokenize", "tokenize", s);
    for (size_t i = 0; i < n; ++i)
        printf(i ? " %d" : "%d", ids[i]);
    printf("\n");
    free(ids);
    llm_model_free(model);
    return 0;
}
