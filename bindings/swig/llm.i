/* llm.i — the one SWIG interface over include/llm.h, for Go, C# and Lua.
 *
 * The raw wrappers generated from it stay close to the C API; each language
 * then has a small hand-written idiomatic layer (bindings/<lang>/) on top.
 * What this file adds to the plain C declarations:
 *   - llm_status results carry llm_last_error() with them. The message is read
 *     in the C wrapper, right after the failing call and on its thread (the
 *     message is thread-local and a Go goroutine may change threads between
 *     two cgo calls), then handed over in the language's own way.
 *   - out-parameters become results, (buf, cap, &n) buffers and (ptr, n)
 *     arrays become the language's arrays or strings (per language below).
 *   - llm_model_params owns a copy of tokenizer_path (freed with the struct).
 * Callbacks are not wrapped: streaming uses the pull API (llm_context_step),
 * which every language can drive without calling back from C.
 *
 * The module name comes from the command line (-module) per language. */
%module llm

%{
#include <stdlib.h>
#include <string.h>

#include "llm.h"
%}

%include <stdint.i>

/* ---- not wrapped ---------------------------------------------------------- */
%ignore llm_log_set;        /* a process-wide callback sink */
%ignore llm_generate;       /* callback loop: bindings drive llm_context_step */
%ignore llm_context_logits; /* borrowed raw pointer: use llm_context_copy_logits */
%ignore llm_chat_format;    /* takes an array of structs; not wrapped yet */
%ignore llm_chat_message;
%ignore llm_generate_params;        /* only used by llm_generate */
%ignore llm_generate_default_params;
%ignore llm_log_callback;
%ignore llm_piece_callback;
/* The message is thread-local: the status typemaps below read it in the C
 * wrapper, on the thread that failed. Host code must not read it later. */
%ignore llm_last_error;

/* ---- llm_model_params.tokenizer_path ------------------------------------- */
/* The C struct only borrows the string; a wrapped struct outlives the host
 * string it was set from, so it keeps its own copy and frees it with itself. */
%{
static char *llm_swig_strdup(const char *s) {
    char *copy = NULL;
    if (s) {
        size_t n = strlen(s) + 1;
        copy = (char *)malloc(n);
        if (copy) memcpy(copy, s, n);
    }
    return copy;
}
%}
%typemap(memberin) const char *tokenizer_path {
    free((char *)$1);
    $1 = llm_swig_strdup($input);
}
%extend llm_model_params {
    ~llm_model_params() {
        free((char *)$self->tokenizer_path);
        free($self);
    }
}

/* ---- llm_chat_params strings --------------------------------------------- */
/* Same ownership as tokenizer_path: copies owned and freed by the struct. */
%typemap(memberin) const char *template_override, const char *tools_json,
    const char *extra_vars_json {
    free((char *)$1);
    $1 = llm_swig_strdup($input);
}
%extend llm_chat_params {
    ~llm_chat_params() {
        free((char *)$self->template_override);
        free((char *)$self->tools_json);
        free((char *)$self->extra_vars_json);
        free($self);
    }
}

/* ---- per-language typemaps (before the declarations they bind to) -------- */
#if defined(SWIGGO)
%include "llm_go.swg"
#elif defined(SWIGCSHARP)
%include "llm_csharp.swg"
#elif defined(SWIGLUA)
%include "llm_lua.swg"
#endif

%include "llm.h"
