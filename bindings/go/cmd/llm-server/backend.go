package main

import (
	"libllm.dev/llm"
)

// backend is what the handlers need from a model; modelBackend is the
// real one, the tests use a fake.
type backend interface {
	// ChatPrompt renders messages with the model's chat template, ending
	// with the opening of the assistant's turn.
	ChatPrompt(messages []llm.ChatMessage, tools []any, vars map[string]any) (string, error)
	// ParseChat splits an answer into content, reasoning and tool calls.
	ParseChat(text string) (llm.ChatAnswer, error)
	// CountTokens is the number of tokens prompt takes in a slot.
	CountTokens(prompt string) (int, error)
	// Embed is the embedding of text with the model's pooling and the
	// number of tokens it took.
	Embed(text string) ([]float32, int, error)
	// ContextSize is the positions a slot holds.
	ContextSize() int
	// NewSlot makes one generation slot.
	NewSlot() (slot, error)
	// Close frees the model; slots are closed before.
	Close() error
}

// genParams are the sampling settings of one request.
type genParams struct {
	maxTokens   int // > 0
	temperature float32
	topP        float32
	seed        uint64
	jsonSchema  string // "" = free text
}

// slot is one session: it serves one request at a time.
type slot interface {
	// Reset forgets the previous request (and a stale Cancel).
	Reset() error
	// Generate feeds prompt and calls fn with each piece of text until fn
	// returns false, the end of generation, p.maxTokens or a full context.
	Generate(prompt string, p genParams, fn func(text string) bool) (genResult, error)
	// Cancel stops a running Generate (it returns an error); any goroutine.
	Cancel()
	Close() error
}

// genResult is how a generation ended.
type genResult struct {
	tokens int
	stop   llm.StopReason
}

// modelBackend serves a loaded llm.Model.
type modelBackend struct {
	model   *llm.Model
	ctxSize int
	threads int
}

func newModelBackend(path, tokenizer string, ctxSize, threads int) (*modelBackend, error) {
	m, err := llm.Load(path, &llm.ModelOptions{TokenizerPath: tokenizer})
	if err != nil {
		return nil, err
	}
	if max := m.Info().ContextLength; ctxSize <= 0 || (max > 0 && ctxSize > max) {
		ctxSize = max
	}
	return &modelBackend{model: m, ctxSize: ctxSize, threads: threads}, nil
}

func (b *modelBackend) ChatPrompt(messages []llm.ChatMessage, tools []any, vars map[string]any) (string, error) {
	return b.model.ApplyChatTemplate(messages, &llm.ChatOptions{Tools: tools, Vars: vars})
}

func (b *modelBackend) ParseChat(text string) (llm.ChatAnswer, error) { return b.model.ParseChat(text) }

func (b *modelBackend) CountTokens(prompt string) (int, error) {
	ids, err := b.model.Tokenize(prompt, llm.AddSpecial|llm.ParseSpecial)
	return len(ids), err
}

func (b *modelBackend) Embed(text string) ([]float32, int, error) {
	ids, err := b.model.Tokenize(text, llm.AddSpecial)
	if err != nil {
		return nil, 0, err
	}
	v, err := b.model.Embed(text, &llm.EmbedOptions{Threads: b.threads})
	return v, len(ids), err
}

func (b *modelBackend) ContextSize() int { return b.ctxSize }

func (b *modelBackend) NewSlot() (slot, error) {
	s, err := b.model.NewSession(&llm.SessionOptions{ContextSize: b.ctxSize, Threads: b.threads})
	if err != nil {
		return nil, err
	}
	return sessionSlot{s}, nil
}

func (b *modelBackend) Close() error { return b.model.Close() }

// sessionSlot is a slot over an llm.Session.
type sessionSlot struct{ s *llm.Session }

func (s sessionSlot) Reset() error { return s.s.Reset() }
func (s sessionSlot) Cancel()      { s.s.Cancel() }
func (s sessionSlot) Close() error { return s.s.Close() }

func (s sessionSlot) Generate(prompt string, p genParams, fn func(string) bool) (genResult, error) {
	opts := []llm.Option{
		llm.ParseSpecialTokens(), llm.MaxTokens(p.maxTokens),
		llm.Temperature(p.temperature), llm.TopP(p.topP), llm.Seed(p.seed),
	}
	if p.jsonSchema != "" {
		opt, err := jsonSchemaOption(p.jsonSchema)
		if err != nil {
			return genResult{}, err
		}
		opts = append(opts, opt)
	}
	res, err := s.s.Stream(prompt, func(piece llm.Piece) bool {
		return piece.Text == "" || fn(piece.Text)
	}, opts...)
	return genResult{tokens: len(res.Tokens), stop: res.Stop}, err
}
