package main

import (
	"net/http"
	"time"
)

// handleCompletions is POST /v1/completions: a raw prompt (with the
// model's BOS; special-token text is read as the special token).
func (s *server) handleCompletions(w http.ResponseWriter, r *http.Request) error {
	var req completionRequest
	if err := s.readJSON(w, r, &req); err != nil {
		return err
	}
	if err := s.checkModel(req.Model); err != nil {
		return err
	}
	prompts, err := stringOrList(req.Prompt, "prompt")
	if err != nil {
		return err
	}
	if len(prompts) != 1 {
		return badRequest("prompt", "prompt must be one string")
	}
	g, err := s.prepare(&req.sampling, prompts[0])
	if err != nil {
		return err
	}
	id, created := newID("cmpl-"), time.Now().Unix()
	echo := ""
	if req.Echo {
		echo = prompts[0]
	}
	if !req.Stream {
		out, err := s.generate(r.Context(), g, nil)
		if err != nil {
			return err
		}
		writeJSON(w, 200, textCompletion{
			ID: id, Object: "text_completion", Created: created, Model: s.cfg.modelName,
			Choices: []textChoice{{Text: echo + out.text, FinishReason: &out.finishReason}},
			Usage:   newUsage(g.promptTokens, out.completionTokens),
		})
		return nil
	}

	chunk := func(text string, finish *string) textCompletion {
		return textCompletion{ID: id, Object: "text_completion", Created: created, Model: s.cfg.modelName,
			Choices: []textChoice{{Text: text, FinishReason: finish}}}
	}
	var stream *sse
	begin := func() bool {
		if stream == nil {
			stream = startSSE(w)
			if echo != "" {
				return stream.send(chunk(echo, nil))
			}
		}
		return !stream.failed
	}
	out, err := s.generate(r.Context(), g, func(text string) bool {
		return begin() && stream.send(chunk(text, nil))
	})
	if err != nil {
		if stream == nil {
			return err
		}
		s.sendError(stream, err)
		return nil
	}
	if !begin() {
		return nil
	}
	stream.send(chunk("", &out.finishReason))
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		stream.send(textCompletion{ID: id, Object: "text_completion", Created: created, Model: s.cfg.modelName,
			Choices: []textChoice{}, Usage: newUsage(g.promptTokens, out.completionTokens)})
	}
	stream.send("[DONE]")
	return nil
}
