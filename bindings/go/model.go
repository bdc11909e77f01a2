// Package llm runs small language models with libllm from Go.
//
// A Model holds weights and tokenizer; a Session is one conversation on it
// (its own KV cache), and many sessions may share a model. Both hold native
// memory: Close them when done (a finalizer frees what was forgotten, late).
// Every failure is an *Error carrying the libllm Status and message.
package llm

import (
	"runtime"
	"sync"
	"sync/atomic"

	"libllm.dev/llm/internal/capi"
)

// WeightType is how a model's weights are held in memory.
type WeightType int32

// Weight types (LLM_WEIGHTS_* in llm.h). WeightsAuto keeps the file's type.
var (
	WeightsAuto = WeightType(capi.LLM_WEIGHTS_AUTO)
	WeightsF32  = WeightType(capi.LLM_WEIGHTS_F32)
	WeightsBF16 = WeightType(capi.LLM_WEIGHTS_BF16)
	WeightsF16  = WeightType(capi.LLM_WEIGHTS_F16)
	WeightsQ8_0 = WeightType(capi.LLM_WEIGHTS_Q8_0)
)

// ModelOptions tune Load. The zero value is the default.
type ModelOptions struct {
	// TokenizerPath is the tokenizer of a llama2.c checkpoint; "" means
	// tokenizer.bin next to the model. Hugging Face folders ignore it.
	TokenizerPath string
	// WeightType converts the weights at load; WeightsAuto (0) keeps them.
	WeightType WeightType
	// NoMmap reads the file into memory instead of mapping it.
	NoMmap bool
}

// Info describes a loaded model.
type Info struct {
	Arch          string // "llama" or "qwen2"
	VocabSize     int
	ContextLength int // positions the model was trained for
	EmbeddingSize int
	Layers        int
	Heads         int
	KVHeads       int
	Params        int64
	WeightBytes   int64
	WeightType    WeightType
	BOS, EOS      int32 // -1 when the model has none
}

// TokenizeFlags select how text becomes tokens.
type TokenizeFlags int32

// Tokenize flags (LLM_TOKENIZE_* in llm.h).
var (
	// AddSpecial adds BOS/EOS as the model's tokenizer config says.
	AddSpecial = TokenizeFlags(capi.LLM_TOKENIZE_ADD_SPECIAL)
	// ParseSpecial turns special-token text ("<|im_start|>") into its id.
	ParseSpecial = TokenizeFlags(capi.LLM_TOKENIZE_PARSE_SPECIAL)
)

// Model is a loaded model: weights and tokenizer. Its methods are safe for
// concurrent use. Close it after use; sessions keep it alive until they are
// closed too.
type Model struct {
	mu       sync.RWMutex
	handle   capi.SwigcptrModel // 0 once freed
	closed   bool
	sessions int // open sessions: the native model is freed after the last
	info     Info
}

// liveNative counts native models and sessions not yet freed (for tests).
var liveNative atomic.Int64

// Load loads a llama2.c checkpoint (.bin) or a Hugging Face folder
// (config.json, model.safetensors, tokenizer.json). opts may be nil.
func Load(path string, opts *ModelOptions) (*Model, error) {
	if opts == nil {
		opts = &ModelOptions{}
	}
	params := capi.Llm_model_default_params()
	defer capi.DeleteLlm_model_params(params)
	if opts.TokenizerPath != "" {
		params.SetTokenizer_path(opts.TokenizerPath)
	}
	params.SetWeight_type(int(opts.WeightType))
	if opts.NoMmap {
		params.SetUse_mmap(0)
	}
	out := make([]capi.SwigcptrModel, 1)
	if err := capi.Llm_model_load(path, params, out); err != nil {
		return nil, wrap("load", err)
	}
	h := out[0]
	liveNative.Add(1)
	m := &Model{handle: h, info: Info{
		Arch:          capi.Llm_model_arch(h),
		VocabSize:     capi.Llm_model_n_vocab(h),
		ContextLength: capi.Llm_model_n_ctx_train(h),
		EmbeddingSize: capi.Llm_model_n_embd(h),
		Layers:        capi.Llm_model_n_layer(h),
		Heads:         capi.Llm_model_n_head(h),
		KVHeads:       capi.Llm_model_n_head_kv(h),
		Params:        capi.Llm_model_n_params(h),
		WeightBytes:   capi.Llm_model_weight_bytes(h),
		WeightType:    WeightType(capi.Llm_model_weight_type(h)),
		BOS:           int32(capi.Llm_model_bos(h)),
		EOS:           int32(capi.Llm_model_eos(h)),
	}}
	runtime.SetFinalizer(m, (*Model).Close)
	return m, nil
}

// Close releases the model. Sessions still open keep the native model until
// they are closed; the Model itself can no longer be used. Closing twice is
// harmless.
func (m *Model) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	m.freeIfUnused()
	runtime.SetFinalizer(m, nil)
	return nil
}

// freeIfUnused frees the native model once it is closed and no session
// uses it. Call with m.mu held for writing.
func (m *Model) freeIfUnused() {
	if m.closed && m.sessions == 0 && m.handle != 0 {
		capi.Llm_model_free(m.handle)
		m.handle = 0
		liveNative.Add(-1)
	}
}

// Info describes the model. It stays available after Close.
func (m *Model) Info() Info { return m.info }

// VocabSize is the number of token ids.
func (m *Model) VocabSize() int { return m.info.VocabSize }

// IsEndOfGeneration reports whether token ends a generation (EOS; BOS too
// for llama2.c checkpoints). False after Close.
func (m *Model) IsEndOfGeneration(token int32) bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return !m.closed && capi.Llm_token_is_eog(m.handle, int(token)) != 0
}

// Tokenize encodes UTF-8 text into token ids.
func (m *Model) Tokenize(text string, flags TokenizeFlags) ([]int32, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, ErrClosed
	}
	return m.tokenize(text, flags)
}

// tokenize needs m.mu held and the model open.
func (m *Model) tokenize(text string, flags TokenizeFlags) ([]int32, error) {
	n := []uint64{0}
	ids := make([]int32, len(text)+2) // enough unless merges are absent
	err := capi.Llm_tokenize(m.handle, text, int(flags), ids, n)
	if isStatus(err, ErrBufferTooSmall) {
		ids = make([]int32, n[0])
		err = capi.Llm_tokenize(m.handle, text, int(flags), ids, n)
	}
	if err != nil {
		return nil, wrap("tokenize", err)
	}
	return ids[:n[0]], nil
}

// Detokenize decodes token ids back to text; special tokens are skipped.
func (m *Model) Detokenize(ids []int32) (string, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return "", ErrClosed
	}
	n := []uint64{0}
	err := capi.Llm_detokenize(m.handle, ids, 0, nil, n) // size query
	if err != nil && !isStatus(err, ErrBufferTooSmall) {
		return "", wrap("detokenize", err)
	}
	buf := make([]byte, n[0])
	if err := capi.Llm_detokenize(m.handle, ids, 0, buf, n); err != nil {
		return "", wrap("detokenize", err)
	}
	return string(buf[:n[0]]), nil
}
