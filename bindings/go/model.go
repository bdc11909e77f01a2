// Package llm runs small language models with libllm from Go.
//
// A Model holds weights and tokenizer; a Session is one conversation on it
// (its own KV cache), and many sessions may share a model. Both hold native
// memory: Close them when done (a finalizer frees what was forgotten, late).
// Every failure is an *Error carrying the libllm Status and message.
package llm

import (
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"libllm.dev/llm/internal/capi"
)

// WeightType is how a model's weights are held in memory.
type WeightType int32

// Weight types (LLM_WEIGHTS_* in llm.h). WeightsAuto keeps the file's type.
// The block-quantized types from WeightsQ4_0 on are those of GGUF files.
var (
	WeightsAuto = WeightType(capi.LLM_WEIGHTS_AUTO)
	WeightsF32  = WeightType(capi.LLM_WEIGHTS_F32)
	WeightsBF16 = WeightType(capi.LLM_WEIGHTS_BF16)
	WeightsF16  = WeightType(capi.LLM_WEIGHTS_F16)
	WeightsQ8_0 = WeightType(capi.LLM_WEIGHTS_Q8_0)
	WeightsQ4_0 = WeightType(capi.LLM_WEIGHTS_Q4_0)
	WeightsQ4_1 = WeightType(capi.LLM_WEIGHTS_Q4_1)
	WeightsQ5_0 = WeightType(capi.LLM_WEIGHTS_Q5_0)
	WeightsQ5_1 = WeightType(capi.LLM_WEIGHTS_Q5_1)
	WeightsQ4_K = WeightType(capi.LLM_WEIGHTS_Q4_K)
	WeightsQ5_K = WeightType(capi.LLM_WEIGHTS_Q5_K)
	WeightsQ6_K = WeightType(capi.LLM_WEIGHTS_Q6_K)
)

// String is libllm's name of the weight type ("f32", "q8_0", "q4_k", ...:
// llm_weight_type_name), or "WeightType(n)" for a value it does not know.
func (w WeightType) String() string {
	if name := capi.Llm_weight_type_name(int(w)); name != "" {
		return name
	}
	return "WeightType(" + strconv.Itoa(int(w)) + ")"
}

// ParseWeightType is the weight type of a name String gives ("q4_k"; any
// case). An unknown name is an *Error with status ErrInvalidArgument.
func ParseWeightType(name string) (WeightType, error) {
	if strings.IndexByte(name, 0) < 0 {
		if w := capi.Llm_weight_type_from_name(strings.ToLower(name)); w >= 0 {
			return WeightType(w), nil
		}
	}
	return 0, &Error{Op: "weight type", Status: ErrInvalidArgument,
		Message: "unknown weight type " + strconv.Quote(name)}
}

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

// Metadata is the model file's metadata as text: a GGUF file's key-value
// pairs (numbers and booleans written out, arrays left out). Every model
// has "general.architecture".
func (m *Model) Metadata() (map[string]string, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, ErrClosed
	}
	count := capi.Llm_model_meta_count(m.handle)
	meta := make(map[string]string, count)
	buf := make([]byte, 64)
	for i := 0; i < count; i++ {
		key, err := sized(buf, func(b []byte, n []uint64) error {
			return capi.Llm_model_meta_key(m.handle, i, b, n)
		})
		if err != nil {
			return nil, wrap("metadata", err)
		}
		value, err := m.metaValue(key, buf)
		if err != nil {
			return nil, err
		}
		meta[key] = value
	}
	return meta, nil
}

// MetaValue is one metadata value. A key the file lacks is an *Error with
// status ErrNotFound (errors.Is(err, llm.ErrNotFound)).
func (m *Model) MetaValue(key string) (string, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return "", ErrClosed
	}
	return m.metaValue(key, make([]byte, 64))
}

// metaValue needs m.mu held and the model open; buf is a first guess.
func (m *Model) metaValue(key string, buf []byte) (string, error) {
	if strings.IndexByte(key, 0) >= 0 { // llm.h takes C strings: never a key
		return "", &Error{Op: "metadata", Status: ErrNotFound, Message: "no metadata key " + strconv.Quote(key)}
	}
	value, err := sized(buf, func(b []byte, n []uint64) error {
		return capi.Llm_model_meta_value(m.handle, key, b, n)
	})
	if err != nil {
		return "", wrap("metadata", err)
	}
	return value, nil
}

// sized runs a (buf, cap, &needed) call with buf, then once more with the
// size it asked for.
func sized(buf []byte, call func(b []byte, n []uint64) error) (string, error) {
	n := []uint64{0}
	err := call(buf, n)
	if isStatus(err, ErrBufferTooSmall) {
		buf = make([]byte, n[0])
		err = call(buf, n)
	}
	if err != nil {
		return "", err
	}
	return string(buf[:n[0]]), nil
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
