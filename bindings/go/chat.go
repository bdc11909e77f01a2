package llm

import (
	"encoding/json"
	"strings"

	"libllm.dev/llm/internal/capi"
)

// ChatMessage is one turn of a conversation for ApplyChatTemplate.
type ChatMessage struct {
	Role    string `json:"role"` // "system", "user", "assistant", "tool"
	Content string `json:"content"`
	// ReasoningContent and ToolCalls of an earlier answer (see ParseChat),
	// for templates that show them.
	ReasoningContent string     `json:"reasoning_content,omitempty"`
	ToolCalls        []ToolCall `json:"tool_calls,omitempty"`
}

// ChatOptions are ApplyChatTemplate's options; the zero value renders with
// the model's template and ends by opening the assistant's turn.
type ChatOptions struct {
	// Tools are tool definitions (anything encoding/json can write), given
	// to the template as `tools`.
	Tools []any
	// Vars are extra template variables, e.g. {"enable_thinking": false}.
	Vars map[string]any
	// NoGenerationPrompt leaves out the opening of the assistant's turn.
	NoGenerationPrompt bool
	// Template is a Jinja template used instead of the model's.
	Template string
}

// ToolCall is a tool call found in an answer.
type ToolCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// ChatAnswer is a generated answer split by ParseChat.
type ChatAnswer struct {
	Content          string     `json:"content"`
	ReasoningContent string     `json:"reasoning_content"`
	ToolCalls        []ToolCall `json:"tool_calls"`
}

func chatJSON(op string, value any) (string, error) {
	b, err := json.Marshal(value)
	if err != nil {
		return "", &Error{Op: op, Status: ErrInvalidArgument, Message: err.Error()}
	}
	return string(b), nil
}

// ApplyChatTemplate renders a conversation with the model's own chat
// template (llm_chat_apply): the prompt to tokenize with ParseSpecial.
// Errors: ErrTemplate (the template failed; the message names the line),
// ErrUnsupported (no template), ErrInvalidArgument.
func (m *Model) ApplyChatTemplate(messages []ChatMessage, opts *ChatOptions) (string, error) {
	const op = "apply chat template"
	if opts == nil {
		opts = &ChatOptions{}
	}
	messagesJSON, err := chatJSON(op, messages)
	if err != nil {
		return "", err
	}
	if strings.ContainsRune(opts.Template, 0) {
		return "", &Error{Op: op, Status: ErrInvalidArgument, Message: "the template contains a NUL character"}
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return "", ErrClosed
	}
	params := capi.Llm_chat_default_params()
	defer capi.DeleteLlm_chat_params(params)
	if opts.Template != "" {
		params.SetTemplate_override(opts.Template)
	}
	if opts.Tools != nil {
		tools, err := chatJSON(op, opts.Tools)
		if err != nil {
			return "", err
		}
		params.SetTools_json(tools)
	}
	if opts.Vars != nil {
		vars, err := chatJSON(op, opts.Vars)
		if err != nil {
			return "", err
		}
		params.SetExtra_vars_json(vars)
	}
	if opts.NoGenerationPrompt {
		params.SetAdd_generation_prompt(0)
	}
	prompt, err := sized(make([]byte, 1024), func(b []byte, n []uint64) error {
		return capi.Llm_chat_apply(m.handle, messagesJSON, params, b, n)
	})
	if err != nil {
		return "", wrap(op, err)
	}
	return prompt, nil
}

// ChatTemplate is the model's Jinja chat template ("" if it has none).
func (m *Model) ChatTemplate() (string, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return "", ErrClosed
	}
	t, err := sized(make([]byte, 1024), func(b []byte, n []uint64) error {
		return capi.Llm_model_chat_template(m.handle, b, n)
	})
	if err != nil {
		return "", wrap("chat template", err)
	}
	return t, nil
}

// ParseChat splits a generated answer (llm_chat_parse): a <think>...</think>
// block is the reasoning, <tool_call> blocks (and a Llama 3.1 JSON call)
// are ToolCalls, the rest is Content.
func (m *Model) ParseChat(text string) (ChatAnswer, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return ChatAnswer{}, ErrClosed
	}
	js, err := sized(make([]byte, len(text)+256), func(b []byte, n []uint64) error {
		return capi.Llm_chat_parse(m.handle, text, b, n)
	})
	if err != nil {
		return ChatAnswer{}, wrap("parse chat", err)
	}
	var answer ChatAnswer
	if err := json.Unmarshal([]byte(js), &answer); err != nil {
		return ChatAnswer{}, &Error{Op: "parse chat", Status: ErrFormat, Message: err.Error()}
	}
	return answer, nil
}
