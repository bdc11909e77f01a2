package llm

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func loadQwen(t *testing.T) *Model {
	t.Helper()
	m, err := Load(filepath.Join(sharedDir(), "models", "qwen2-tiny"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func TestApplyChatTemplate(t *testing.T) {
	m := loadQwen(t)
	tmpl, err := m.ChatTemplate()
	if err != nil || !strings.Contains(tmpl, "im_start") {
		t.Fatalf("ChatTemplate: %v %q", err, tmpl)
	}
	conversation := []ChatMessage{
		{Role: "user", Content: "Hello"},
		{Role: "assistant", Content: "Hi there"},
		{Role: "user", Content: "Tell me a story"},
	}
	prompt, err := m.ApplyChatTemplate(conversation, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(prompt, "<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\nHi there<|im_end|>\n") ||
		!strings.HasSuffix(prompt, "<|im_start|>user\nTell me a story<|im_end|>\n<|im_start|>assistant\n") {
		t.Fatalf("prompt %q", prompt)
	}
	open, err := m.ApplyChatTemplate(conversation, &ChatOptions{NoGenerationPrompt: true,
		Vars: map[string]any{"enable_thinking": false}})
	if err != nil || !strings.HasSuffix(open, "Tell me a story<|im_end|>\n") {
		t.Fatalf("without generation prompt: %v %q", err, open)
	}
	own, err := m.ApplyChatTemplate(conversation, &ChatOptions{
		Template: "{% for m in messages %}[{{ m.role }}:{{ m.content }}]{% endfor %}{{ extra }}",
		Vars:     map[string]any{"extra": "!"}})
	if err != nil || own != "[user:Hello][assistant:Hi there][user:Tell me a story]!" {
		t.Fatalf("own template: %v %q", err, own)
	}
	tools, err := m.ApplyChatTemplate(conversation, &ChatOptions{Tools: []any{map[string]any{
		"type": "function", "function": map[string]any{"name": "get_time", "parameters": map[string]any{"type": "object"}}}}})
	if err != nil || !strings.Contains(tools, "get_time") {
		t.Fatalf("tools: %v %q", err, tools)
	}
	if _, err := m.ApplyChatTemplate(conversation, &ChatOptions{Template: "{% for %}"}); !errors.Is(err, ErrTemplate) {
		t.Fatalf("bad template: %v", err)
	}
}

func TestParseChat(t *testing.T) {
	m := loadQwen(t)
	a, err := m.ParseChat("<think>a</think>b")
	if err != nil || a.ReasoningContent != "a" || a.Content != "b" || len(a.ToolCalls) != 0 {
		t.Fatalf("%v %+v", err, a)
	}
	a, err = m.ParseChat("<tool_call>\n{\"name\": \"get_time\", \"arguments\": {\"zone\": \"UTC\"}}\n</tool_call>")
	if err != nil || len(a.ToolCalls) != 1 || a.ToolCalls[0].Name != "get_time" ||
		strings.ReplaceAll(string(a.ToolCalls[0].Arguments), " ", "") != `{"zone":"UTC"}` {
		t.Fatalf("%v %+v", err, a)
	}
}
