/* Shared helpers of the command-line tools. They use only llm.h. */
#ifndef LLM_CLI_COMMON_H
#define LLM_CLI_COMMON_H

#include "llm.h"

/* Prints "program: what: message" to stderr and exits with status 1. */
void cli_die(const char *program, const char *what, llm_status status);

/* Parses "-m" weight-type names: auto, f32, bf16, f16, q8_0. -1 if unknown. */
int32_t cli_weight_type(const char *name);

/* Loads a model or exits with a one-line error. */
llm_model *cli_load_model(const char *program, const char *path, const char *tokenizer,
                          int32_t weight_type);

#endif
