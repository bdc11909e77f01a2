package llm

import (
	"sync"

	"libllm.dev/llm/internal/capi"
)

// copyMu serializes CopyPrefixFrom calls: each holds two sessions' locks,
// and two copies in opposite directions must not wait on each other.
var copyMu sync.Mutex

// SaveState returns the session's state: its tokens, KV cache, last logits
// and text stream, as bytes that LoadState (on a session of the same
// model, now or in another process) continues from exactly.
func (s *Session) SaveState() ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.handle == 0 {
		return nil, ErrClosed
	}
	n := []uint64{0}
	if err := capi.Llm_context_state_size(s.handle, n); err != nil {
		return nil, wrap("save state", err)
	}
	buf := make([]byte, n[0])
	if err := capi.Llm_context_state_save(s.handle, buf, n); err != nil {
		return nil, wrap("save state", err)
	}
	return buf[:n[0]], nil
}

// LoadState replaces the session's conversation with a saved state. A state
// of another model fails with ErrStateMismatch, a damaged one with
// ErrFormat or ErrTruncated, one longer than the session with
// ErrContextFull; the session is then unchanged.
func (s *Session) LoadState(state []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.handle == 0 {
		return ErrClosed
	}
	return wrap("load state", capi.Llm_context_state_load(s.handle, state))
}

// SaveStateFile writes SaveState's bytes to path (replacing a file there).
func (s *Session) SaveStateFile(path string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.handle == 0 {
		return ErrClosed
	}
	return wrap("save state", capi.Llm_context_state_save_file(s.handle, path))
}

// LoadStateFile is LoadState from a file (ErrNotFound if it is missing).
func (s *Session) LoadStateFile(path string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.handle == 0 {
		return ErrClosed
	}
	return wrap("load state", capi.Llm_context_state_load_file(s.handle, path))
}

// CopyPrefixFrom makes s hold the first n tokens of src and their KV cache,
// as if it had run them (a shared system prompt evaluated once, copied into
// each conversation). Both sessions must run the same model; with n equal
// to src's position the next Generate goes on exactly as src's would.
func (s *Session) CopyPrefixFrom(src *Session, n int) error {
	if src == s {
		return &Error{Op: "copy prefix", Status: ErrInvalidArgument, Message: "source and destination are the same session"}
	}
	copyMu.Lock()
	defer copyMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	src.mu.Lock()
	defer src.mu.Unlock()
	if s.handle == 0 || src.handle == 0 {
		return ErrClosed
	}
	return wrap("copy prefix", capi.Llm_context_copy_prefix(s.handle, src.handle, n))
}
