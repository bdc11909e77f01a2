package main

import "strings"

// chatSplitter routes a streamed answer the way ParseChat splits a whole
// one: a leading <think>...</think> block goes to reasoning_content, and
// from a <tool_call> on the text is held back until the end decides
// (ParseChat: tool calls, or content if the call is malformed).
type chatSplitter struct {
	mode  int    // splitStart, splitReasoning, splitContent, splitHeld
	lead  string // splitStart: the text so far
	m     stopMatcher
	held  strings.Builder
	plain bool // JSON under a response_format: all content
}

const (
	splitStart = iota
	splitReasoning
	splitContent
	splitHeld
)

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
	toolOpen   = "<tool_call>"
)

// add takes a piece and returns what may be streamed now.
func (c *chatSplitter) add(text string) (reasoning, content string) {
	if c.plain {
		return "", text
	}
	switch c.mode {
	case splitStart:
		c.lead += text
		trimmed := strings.TrimLeft(c.lead, " \t\r\n")
		if len(trimmed) < len(thinkOpen) && strings.HasPrefix(thinkOpen, trimmed) {
			return "", "" // it may still open a think block
		}
		lead := c.lead
		c.lead = ""
		if strings.HasPrefix(trimmed, thinkOpen) {
			c.mode, c.m = splitReasoning, stopMatcher{stops: []string{thinkClose}}
			return c.add(trimmed[len(thinkOpen):])
		}
		c.mode, c.m = splitContent, stopMatcher{stops: []string{toolOpen}}
		return c.add(lead)
	case splitReasoning:
		out, hit := c.m.add(text)
		if !hit {
			return out, ""
		}
		after := c.m.after
		c.mode, c.m = splitContent, stopMatcher{stops: []string{toolOpen}}
		_, content = c.add(after)
		return out, content
	case splitContent:
		out, hit := c.m.add(text)
		if hit {
			c.mode = splitHeld
			c.held.WriteString(toolOpen + c.m.after)
		}
		return "", out
	}
	c.held.WriteString(text)
	return "", ""
}

// finish returns the text still held back at the end; toolCalls: the
// answer has tool calls, so the held tool-call markup is not content.
func (c *chatSplitter) finish(toolCalls bool) (reasoning, content string) {
	switch c.mode {
	case splitStart:
		return "", c.lead
	case splitReasoning:
		return c.m.flush(), ""
	case splitContent:
		return "", c.m.flush()
	}
	if toolCalls {
		return "", ""
	}
	return "", c.held.String()
}
