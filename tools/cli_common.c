#include "cli_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cli_die(const char *program, const char *what, llm_status status) {
    fprintf(stderr, "%s: %s: %s (%s)\n", program, what, llm_last_error(), llm_status_str(status));
    exit(1);
}

int32_t cli_weight_type(const char *name) {
    static const struct {
        const char *name;
        int32_t type;
    } types[] = {{"auto", LLM_WEIGHTS_AUTO},
                 {"f32", LLM_WEIGHTS_F32},
                 {"bf16", LLM_WEIGHTS_BF16},
                 {"f16", LLM_WEIGHTS_F16},
                 {"q8_0", LLM_WEIGHTS_Q8_0}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; ++i)
        if (strcmp(name, types[i].name) == 0) return types[i].type;
    return -1;
}

llm_model *cli_load_model(const char *program, const char *path, const char *tokenizer,
                          int32_t weight_type) {
    llm_model_params params = llm_model_default_params();
    params.tokenizer_path = tokenizer;
    params.weight_type = weight_type;
    llm_model *model = NULL;
    llm_status s = llm_model_load(path, &params, &model);
    if (s != LLM_OK) cli_die(program, "cannot load model", s);
    return model;
}
