/* Links libllm and calls into the engine: header and library must be the same
 * release, and a missing model must come back as a clean NOT_FOUND. */
#include <stdio.h>
#include <string.h>

#include "llm.h"

int main(void) {
    if (strcmp(llm_version(), LLM_VERSION_STRING) != 0) {
        fprintf(stderr, "llm.h %s but libllm %s\n", LLM_VERSION_STRING, llm_version());
        return 1;
    }
    llm_model *model = NULL;
    llm_status s = llm_model_load("no-such-model.bin", NULL, &model);
    if (s != LLM_ERR_NOT_FOUND || model != NULL) {
        fprintf(stderr, "loading a missing model gave %s\n", llm_status_str(s));
        return 1;
    }
    printf("libllm %s: %s\n", llm_version(), llm_last_error());
    return 0;
}
