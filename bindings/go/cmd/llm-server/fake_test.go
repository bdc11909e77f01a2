package main

import (
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"libllm.dev/llm"
)

// fakeBackend stands in for a model: a prompt's answer is its words
// reversed, one word per token ("a b c" -> "c b a ").
type fakeBackend struct {
	ctxSize int
	delay   time.Duration // per token
	mu      sync.Mutex
	slots   []*fakeSlot
	closed  bool
}

func (b *fakeBackend) ChatPrompt(messages []llm.ChatMessage, tools []any, vars map[string]any) (string, error) {
	var p strings.Builder
	for _, m := range messages {
		if m.Content == "panic" {
			panic("the fake template panics")
		}
		if m.Content == "no template" {
			return "", &llm.Error{Op: "apply chat template", Status: llm.ErrUnsupported}
		}
		if m.Content == "bad template" {
			return "", &llm.Error{Op: "apply chat template", Status: llm.ErrTemplate, Message: "line 1: raised"}
		}
		p.WriteString(m.Role + ": " + m.Content + "\n")
	}
	return p.String() + "assistant:", nil
}

func (b *fakeBackend) ParseChat(text string) (llm.ChatAnswer, error) {
	var a llm.ChatAnswer
	if i := strings.Index(text, "<think>"); i >= 0 {
		if j := strings.Index(text, "</think>"); j > i {
			a.ReasoningContent = text[i+len("<think>") : j]
			text = text[:i] + text[j+len("</think>"):]
		}
	}
	if i := strings.Index(text, "<tool_call>"); i >= 0 {
		a.ToolCalls = []llm.ToolCall{{Name: "get_weather", Arguments: []byte(`{"city":"Paris"}`)}}
		text = text[:i]
	}
	a.Content = text
	return a, nil
}

func (b *fakeBackend) CountTokens(prompt string) (int, error) {
	return len(strings.Fields(prompt)) + 1, nil
}

func (b *fakeBackend) Embed(text string) ([]float32, int, error) {
	return []float32{float32(len(text)), 0.5, -1}, len(strings.Fields(text)) + 1, nil
}

func (b *fakeBackend) ContextSize() int { return b.ctxSize }

func (b *fakeBackend) NewSlot() (slot, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := &fakeSlot{b: b}
	b.slots = append(b.slots, s)
	return s, nil
}

func (b *fakeBackend) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	return nil
}

type fakeSlot struct {
	b         *fakeBackend
	cancelled atomic.Bool
	running   atomic.Int32
	closed    atomic.Bool
}

func (s *fakeSlot) Reset() error { s.cancelled.Store(false); return nil }
func (s *fakeSlot) Cancel()      { s.cancelled.Store(true) }
func (s *fakeSlot) Close() error { s.closed.Store(true); return nil }

func fakeAnswer(prompt string) []string {
	if i := strings.LastIndex(prompt, "user: "); i >= 0 { // the last user turn
		prompt = prompt[i+len("user: "):]
		prompt = strings.TrimSuffix(strings.TrimSpace(strings.TrimSuffix(prompt, "assistant:")), "\n")
	}
	words := strings.Fields(prompt)
	out := make([]string, 0, len(words))
	for i := len(words) - 1; i >= 0; i-- {
		out = append(out, words[i]+" ")
	}
	return out
}

func (s *fakeSlot) Generate(prompt string, p genParams, fn func(string) bool) (genResult, error) {
	if p.maxTokens < 1 {
		return genResult{}, errors.New("maxTokens not set")
	}
	s.running.Add(1)
	defer s.running.Add(-1)
	res := genResult{stop: llm.StopEOS}
	for _, w := range fakeAnswer(prompt) {
		if s.b.delay > 0 {
			time.Sleep(s.b.delay)
		}
		if s.cancelled.Swap(false) {
			return res, &llm.Error{Op: "generate", Status: llm.ErrCancelled}
		}
		if res.tokens == p.maxTokens {
			res.stop = llm.StopMaxTokens
			return res, nil
		}
		res.tokens++
		if !fn(w) {
			res.stop = llm.StopCallback
			return res, nil
		}
	}
	return res, nil
}
