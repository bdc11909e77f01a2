package llm

import (
	"errors"

	"libllm.dev/llm/internal/capi"
)

// Status is a libllm status code (LLM_ERR_* in llm.h). The failure statuses
// are errors themselves, so errors.Is(err, llm.ErrNotFound) tests for one.
type Status int32

// The failure statuses of llm.h.
var (
	ErrInvalidArgument   = Status(capi.LLM_ERR_INVALID_ARGUMENT)
	ErrNotFound          = Status(capi.LLM_ERR_NOT_FOUND)
	ErrIO                = Status(capi.LLM_ERR_IO)
	ErrTruncated         = Status(capi.LLM_ERR_TRUNCATED)
	ErrSizeMismatch      = Status(capi.LLM_ERR_SIZE_MISMATCH)
	ErrBadDimensions     = Status(capi.LLM_ERR_BAD_DIMENSIONS)
	ErrFormat            = Status(capi.LLM_ERR_FORMAT)
	ErrTokenizerMismatch = Status(capi.LLM_ERR_TOKENIZER_MISMATCH)
	ErrUnsupported       = Status(capi.LLM_ERR_UNSUPPORTED)
	ErrTokenOutOfRange   = Status(capi.LLM_ERR_TOKEN_OUT_OF_RANGE)
	ErrContextFull       = Status(capi.LLM_ERR_CONTEXT_FULL)
	ErrBufferTooSmall    = Status(capi.LLM_ERR_BUFFER_TOO_SMALL)
	ErrCancelled         = Status(capi.LLM_ERR_CANCELLED)
	ErrOutOfMemory       = Status(capi.LLM_ERR_OUT_OF_MEMORY)
	ErrInternal          = Status(capi.LLM_ERR_INTERNAL)
	ErrTemplate          = Status(capi.LLM_ERR_TEMPLATE)
	ErrGrammar           = Status(capi.LLM_ERR_GRAMMAR)
	ErrStateMismatch     = Status(capi.LLM_ERR_STATE_MISMATCH)
)

// Error returns libllm's short description of the status ("not found").
func (s Status) Error() string { return capi.Llm_status_str(int32(s)) }

// Error is a failed libllm call: what was attempted, the status, and the
// message libllm gave (read on the thread that failed, inside the wrapper).
type Error struct {
	Op      string
	Status  Status
	Message string
}

func (e *Error) Error() string {
	if e.Message == "" {
		return "llm: " + e.Op + ": " + e.Status.Error()
	}
	return "llm: " + e.Op + ": " + e.Message
}

// Unwrap gives the Status, for errors.Is.
func (e *Error) Unwrap() error { return e.Status }

// ErrClosed is returned when a Model or Session is used after Close.
var ErrClosed = errors.New("llm: use of a closed model or session")

// wrap turns a raw wrapper error into an *Error naming the operation.
func wrap(op string, err error) error {
	var se *capi.StatusError
	if errors.As(err, &se) {
		return &Error{Op: op, Status: Status(se.Status), Message: se.Message}
	}
	return err
}

// isStatus reports whether err is a raw wrapper error with status s.
func isStatus(err error, s Status) bool {
	var se *capi.StatusError
	return errors.As(err, &se) && Status(se.Status) == s
}
