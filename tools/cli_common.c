#include "cli_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cli_die(const char *program, const char *what, llm_status status) {
    fprintf(stderr, "%s: %s: %s (%s)\n", program, what, llm_last_error(), llm_status_str(status));
    exit(1);
}

int32_t cli_weight_type(const char *name) {
    return llm_weight_type_from_name(name);
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
