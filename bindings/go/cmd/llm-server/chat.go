package main

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"libllm.dev/llm"
)

// handleChat is POST /v1/chat/completions: the messages rendered with the
// model's own chat template, the answer split by ParseChat.
func (s *server) handleChat(w http.ResponseWriter, r *http.Request) error {
	var req chatRequest
	if err := s.readJSON(w, r, &req); err != nil {
		return err
	}
	if err := s.checkModel(req.Model); err != nil {
		return err
	}
	if req.Messages == nil {
		return badRequest("messages", "messages is required")
	}
	if len(req.Messages) == 0 {
		return badRequest("messages", "messages must not be empty")
	}
	messages, err := chatMessages(req.Messages)
	if err != nil {
		return err
	}
	var tools []any
	for _, t := range req.Tools {
		tools = append(tools, t)
	}
	prompt, err := s.be.ChatPrompt(messages, tools, req.ChatTemplateKwargs)
	if errors.Is(err, llm.ErrUnsupported) {
		e := newAPIError(400, "invalid_request_error", "no_chat_template",
			"model %q has no chat template: use /v1/completions", s.cfg.modelName)
		return e
	}
	if err != nil {
		return err
	}
	g, err := s.prepare(&req.sampling, prompt)
	if err != nil {
		return err
	}
	id, created := newID("chatcmpl-"), time.Now().Unix()
	if !req.Stream {
		out, err := s.generate(r.Context(), g, nil)
		if err != nil {
			return err
		}
		msg, finish := s.answer(out, g)
		writeJSON(w, 200, chatCompletion{
			ID: id, Object: "chat.completion", Created: created, Model: s.cfg.modelName,
			Choices: []chatChoice{{Message: msg, FinishReason: finish}},
			Usage:   newUsage(g.promptTokens, out.completionTokens),
		})
		return nil
	}

	chunk := func(delta chatDelta, finish *string) chatChunk {
		return chatChunk{ID: id, Object: "chat.completion.chunk", Created: created, Model: s.cfg.modelName,
			Choices: []chatChunkChoice{{Delta: delta, FinishReason: finish}}}
	}
	var stream *sse
	begin := func() bool { // headers and the role chunk, at the first text
		if stream == nil {
			stream = startSSE(w)
			empty := ""
			return stream.send(chunk(chatDelta{Role: "assistant", Content: &empty}, nil))
		}
		return !stream.failed
	}
	send := func(reasoning, content string) bool {
		if !begin() {
			return false
		}
		if reasoning == "" && content == "" {
			return true
		}
		var d chatDelta
		if reasoning != "" {
			d.ReasoningContent = &reasoning
		}
		if content != "" {
			d.Content = &content
		}
		return stream.send(chunk(d, nil))
	}
	split := chatSplitter{plain: g.params.jsonSchema != ""}
	out, err := s.generate(r.Context(), g, func(text string) bool { return send(split.add(text)) })
	if err != nil {
		if stream == nil {
			return err // nothing sent yet: a plain error response
		}
		s.sendError(stream, err)
		return nil
	}
	msg, finish := s.answer(out, g)
	if !send(split.finish(len(msg.ToolCalls) > 0)) {
		return nil
	}
	if len(msg.ToolCalls) > 0 {
		for i := range msg.ToolCalls {
			index := i
			msg.ToolCalls[i].Index = &index
		}
		if !stream.send(chunk(chatDelta{ToolCalls: msg.ToolCalls}, nil)) {
			return nil
		}
	}
	stream.send(chunk(chatDelta{}, &finish))
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		stream.send(chatChunk{ID: id, Object: "chat.completion.chunk", Created: created, Model: s.cfg.modelName,
			Choices: []chatChunkChoice{}, Usage: newUsage(g.promptTokens, out.completionTokens)})
	}
	stream.send("[DONE]")
	return nil
}

// answer is the assistant message of a finished generation and its
// finish_reason. Output under a response_format is the JSON as generated.
func (s *server) answer(out outcome, g *generation) (chatMessageOut, string) {
	answer := llm.ChatAnswer{Content: out.text}
	if g.params.jsonSchema == "" {
		if parsed, err := s.be.ParseChat(out.text); err == nil {
			answer = parsed
		}
	}
	msg := chatMessageOut{Role: "assistant", Content: &answer.Content, ReasoningContent: answer.ReasoningContent}
	if len(answer.ToolCalls) == 0 {
		return msg, out.finishReason
	}
	for _, c := range answer.ToolCalls {
		call := toolCallOut{ID: newID("call_"), Type: "function"}
		call.Function.Name = c.Name
		call.Function.Arguments = string(c.Arguments)
		if len(c.Arguments) == 0 {
			call.Function.Arguments = "{}"
		}
		msg.ToolCalls = append(msg.ToolCalls, call)
	}
	if strings.TrimSpace(answer.Content) == "" {
		msg.Content = nil
	}
	return msg, "tool_calls"
}

// chatMessages converts OpenAI messages to the template's.
func chatMessages(in []chatMessageIn) ([]llm.ChatMessage, error) {
	out := make([]llm.ChatMessage, 0, len(in))
	for i, m := range in {
		param := "messages[" + strconv.Itoa(i) + "]"
		role := m.Role
		switch role {
		case "developer":
			role = "system"
		case "system", "user", "assistant", "tool":
		case "":
			return nil, badRequest(param+".role", "%s.role is required", param)
		default:
			return nil, badRequest(param+".role", "unknown role %q", m.Role)
		}
		content, err := messageText(m.Content, param+".content")
		if err != nil {
			return nil, err
		}
		msg := llm.ChatMessage{Role: role, Content: content, ReasoningContent: m.ReasoningContent}
		for _, c := range m.ToolCalls {
			args := json.RawMessage(c.Function.Arguments)
			if !json.Valid(args) { // arguments are JSON text; keep anything else as a string
				args, _ = json.Marshal(c.Function.Arguments)
			}
			msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{Name: c.Function.Name, Arguments: args})
		}
		out = append(out, msg)
	}
	return out, nil
}

// messageText reads a message's content: a string, null, or a list of
// text parts.
func messageText(raw json.RawMessage, param string) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var text string
	if err := json.Unmarshal(raw, &text); err == nil {
		return text, nil
	}
	var parts []struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", badRequest(param, "%s must be a string or a list of content parts", param)
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type != "text" || p.Text == nil {
			return "", badRequest(param, "only text content parts are supported (got %q)", p.Type)
		}
		b.WriteString(*p.Text)
	}
	return b.String(), nil
}
