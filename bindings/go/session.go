package llm

import (
	"runtime"
	"sync"

	"libllm.dev/llm/internal/capi"
)

// KVType is how a session's KV cache stores keys and values.
type KVType int

const (
	KVF32 = KVType(capi.LLM_KV_F32) // exact (the default)
	KVF16 = KVType(capi.LLM_KV_F16) // half the memory; keys and values rounded to fp16
)

// SessionOptions tune NewSession. The zero value is the default.
type SessionOptions struct {
	ContextSize int    // positions the session can hold; 0 = the model's maximum
	Threads     int    // compute threads; 0 = one per physical core
	KVType      KVType // KVF32 (default) or KVF16
}

// Session is one conversation on a model: its KV cache and position.
// Generate continues from where the previous call stopped; Reset starts
// over. Calls on one session are serialized; Cancel may come from any
// goroutine.
type Session struct {
	mu     sync.Mutex
	model  *Model
	handle capi.SwigcptrContext // 0 once freed
	// llm_context_step's outputs
	token, eog []int32
	n          []uint64
	text       []byte
}

// Piece is one generated token and the text it completes (possibly empty:
// a character split over several tokens appears with the last one).
type Piece struct {
	Token int32
	Text  string
}

// StopReason says why a generation ended.
type StopReason int

// Why a generation ended.
const (
	StopEOS         StopReason = iota // an end-of-generation token
	StopMaxTokens                     // MaxTokens were generated
	StopContextFull                   // the session has no room left
	StopCallback                      // the Stream callback returned false
)

func (r StopReason) String() string {
	switch r {
	case StopEOS:
		return "eos"
	case StopMaxTokens:
		return "max tokens"
	case StopContextFull:
		return "context full"
	case StopCallback:
		return "callback"
	}
	return "unknown"
}

// Result is a finished generation.
type Result struct {
	Text   string  // the generated text (without the prompt)
	Tokens []int32 // the generated ids (without an ending EOS)
	Stop   StopReason
}

// NewSession starts a conversation on m. opts may be nil.
func (m *Model) NewSession(opts *SessionOptions) (*Session, error) {
	if opts == nil {
		opts = &SessionOptions{}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	params := capi.Llm_context_default_params()
	defer capi.DeleteLlm_context_params(params)
	params.SetN_ctx(opts.ContextSize)
	params.SetN_threads(opts.Threads)
	params.SetKv_type(int(opts.KVType))
	out := make([]capi.SwigcptrContext, 1)
	if err := capi.Llm_context_new(m.handle, params, out); err != nil {
		return nil, wrap("new session", err)
	}
	m.sessions++
	liveNative.Add(1)
	s := &Session{model: m, handle: out[0], token: []int32{0}, eog: []int32{0}, n: []uint64{0}}
	s.text = make([]byte, capi.Llm_context_step_max_bytes(s.handle))
	runtime.SetFinalizer(s, (*Session).Close)
	return s, nil
}

// Close frees the session (and the model, if it was closed and this was
// its last session). Closing twice is harmless.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.handle == 0 {
		return nil
	}
	runtime.SetFinalizer(s, nil)
	m := s.model
	m.mu.Lock() // excludes a concurrent Cancel
	defer m.mu.Unlock()
	capi.Llm_context_free(s.handle)
	s.handle = 0
	liveNative.Add(-1)
	m.sessions--
	m.freeIfUnused()
	return nil
}

// Reset forgets the conversation: the next Generate starts at position 0.
func (s *Session) Reset() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.handle == 0 {
		return ErrClosed
	}
	capi.Llm_context_reset(s.handle)
	return nil
}

// Cancel asks a running Generate or Stream to stop; it then returns an
// error with status ErrCancelled. Safe from any goroutine.
func (s *Session) Cancel() {
	// Not under s.mu: that is held by the generation being cancelled.
	// llm_context_cancel is safe from any thread while the context lives,
	// and Close frees it only under the model's write lock.
	s.model.mu.RLock()
	defer s.model.mu.RUnlock()
	if h := s.handle; h != 0 {
		capi.Llm_context_cancel(h)
	}
}

// Position is the number of tokens in the session (the prompt and
// everything generated so far).
func (s *Session) Position() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.handle == 0 {
		return 0
	}
	return capi.Llm_context_position(s.handle)
}

// Generate feeds prompt and generates a continuation. At position 0 the
// prompt is tokenized with the model's BOS; later prompts are appended as
// they are. An empty prompt continues from the current state.
func (s *Session) Generate(prompt string, opts ...Option) (Result, error) {
	return s.Stream(prompt, nil, opts...)
}

// Stream is Generate calling fn with each piece as it is produced; fn
// returning false stops the generation (Result.Stop is StopCallback). fn
// runs on the calling goroutine and may call s.Cancel, but no other method
// of s.
func (s *Session) Stream(prompt string, fn func(Piece) bool, opts ...Option) (res Result, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.handle == 0 {
		return res, ErrClosed
	}
	cfg := newGenerateConfig(opts)
	if cfg.maxTokens < 0 {
		return res, &Error{Op: "generate", Status: ErrInvalidArgument, Message: "MaxTokens must be >= 0"}
	}
	// Bad options fail before the prompt is fed. The model is open while s is.
	s.model.mu.RLock()
	sampler, err := cfg.newSampler(s.model.handle)
	s.model.mu.RUnlock()
	if err != nil {
		return res, err
	}
	defer capi.Llm_sampler_free(sampler)
	if err := s.feed(prompt, cfg.parseSpecial); err != nil {
		return res, err
	}

	var text []byte
	defer func() { res.Text = string(text) }()
	res.Stop = StopMaxTokens
	for cfg.maxTokens == 0 || len(res.Tokens) < cfg.maxTokens {
		piece, eog, full, err := s.step(sampler, !cfg.stopAtEOS)
		if err != nil {
			return res, err
		}
		if eog && cfg.stopAtEOS {
			res.Stop = StopEOS
			break
		}
		res.Tokens = append(res.Tokens, piece.Token)
		text = append(text, piece.Text...)
		if fn != nil && !fn(piece) {
			res.Stop = StopCallback
			break
		}
		if full {
			res.Stop = StopContextFull
			break
		}
	}
	return res, nil
}

// step samples one token, decodes it and feeds it back; an end-of-generation
// token is fed only if feedEOG. full: the session had no room to feed it.
// Needs s.mu held.
func (s *Session) step(sampler capi.SwigcptrSampler, feedEOG bool) (p Piece, eog, full bool, err error) {
	err = capi.Llm_context_step(s.handle, sampler, s.token, s.eog, s.text, s.n)
	if isStatus(err, ErrContextFull) {
		full, err = true, nil // the token and its text are still valid
	}
	if err != nil {
		return p, false, false, wrap("generate", err)
	}
	p = Piece{Token: s.token[0], Text: string(s.text[:s.n[0]])}
	eog = s.eog[0] != 0
	if eog && feedEOG && !full {
		err = capi.Llm_forward(s.handle, s.token)
		if isStatus(err, ErrContextFull) {
			full, err = true, nil
		}
		if err != nil {
			return p, eog, false, wrap("generate", err)
		}
	}
	return p, eog, full, nil
}

// feed tokenizes and evaluates a prompt. Needs s.mu held.
func (s *Session) feed(prompt string, parseSpecial bool) error {
	var flags TokenizeFlags
	if capi.Llm_context_position(s.handle) == 0 {
		flags = AddSpecial
	}
	if parseSpecial {
		flags |= ParseSpecial
	}
	s.model.mu.RLock()
	ids, err := s.model.tokenize(prompt, flags)
	s.model.mu.RUnlock()
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		return nil
	}
	return wrap("prompt", capi.Llm_forward(s.handle, ids))
}
