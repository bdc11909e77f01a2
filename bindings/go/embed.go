package llm

import "libllm.dev/llm/internal/capi"

// Pooling is how Embed turns the tokens' hidden states into the result.
type Pooling int

// The poolings of llm.h (LLM_POOLING_*).
const (
	PoolingDefault = Pooling(capi.LLM_POOLING_DEFAULT) // the model's own (DefaultPooling)
	PoolingNone    = Pooling(capi.LLM_POOLING_NONE)    // every token's state, row after row
	PoolingMean    = Pooling(capi.LLM_POOLING_MEAN)    // the average of the tokens' states
	PoolingLast    = Pooling(capi.LLM_POOLING_LAST)    // the last token's (Qwen3-Embedding)
	PoolingFirst   = Pooling(capi.LLM_POOLING_FIRST)   // the first token's ([CLS] style)
)

// EmbedOptions tune Embed. The zero value is the model's pooling,
// normalized to unit length.
type EmbedOptions struct {
	Pooling     Pooling
	NoNormalize bool // keep the vector as the model gives it
	Threads     int  // compute threads; 0 = one per physical core
}

// DefaultPooling is the pooling the model file asks for (PoolingLast for
// Qwen3-Embedding), else PoolingMean.
func (m *Model) DefaultPooling() Pooling {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return PoolingMean
	}
	return Pooling(capi.Llm_model_default_pooling(m.handle))
}

// Embed returns the embedding of text (tokenized with the model's special
// tokens): Info().EmbeddingSize values, or that many per token, one token
// after the other, with PoolingNone. opts may be nil.
func (m *Model) Embed(text string, opts *EmbedOptions) ([]float32, error) {
	if opts == nil {
		opts = &EmbedOptions{}
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, ErrClosed
	}
	ids, err := m.tokenize(text, AddSpecial)
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, &Error{Op: "embed", Status: ErrInvalidArgument, Message: "the text has no tokens"}
	}
	params := capi.Llm_context_default_params()
	defer capi.DeleteLlm_context_params(params)
	if len(ids) <= m.info.ContextLength {
		params.SetN_ctx(len(ids))
	}
	params.SetN_threads(opts.Threads)
	params.SetEmbeddings(1)
	ctx := make([]capi.SwigcptrContext, 1)
	if err := capi.Llm_context_new(m.handle, params, ctx); err != nil {
		return nil, wrap("embed", err)
	}
	defer capi.Llm_context_free(ctx[0])
	normalize := 1
	if opts.NoNormalize {
		normalize = 0
	}
	n := []uint64{0}
	if err := capi.Llm_embed(ctx[0], ids, int(opts.Pooling), normalize, nil, n); err != nil &&
		!isStatus(err, ErrBufferTooSmall) {
		return nil, wrap("embed", err)
	}
	out := make([]float32, n[0])
	if err := capi.Llm_embed(ctx[0], ids, int(opts.Pooling), normalize, out, n); err != nil {
		return nil, wrap("embed", err)
	}
	return out[:n[0]], nil
}
