package main

import (
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sharedDir holds the test models (LLM_SHARED_DIR, set by CTest).
func sharedDir() string {
	if d := os.Getenv("LLM_SHARED_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "..", "shared")
}

// TestModel serves qwen2-tiny (random weights, Qwen's template) for real.
func TestModel(t *testing.T) {
	path := filepath.Join(sharedDir(), "models", "qwen2-tiny")
	be, err := newModelBackend(path, "", 256, 1)
	if err != nil {
		t.Fatal(err)
	}
	if be.ContextSize() != 256 {
		t.Fatalf("context %d", be.ContextSize())
	}
	cfg := config{modelName: defaultModelName(path), maxBody: 1 << 20, parallel: 2, queue: 4}
	s := newServer(cfg, log.New(io.Discard, "", 0))
	if err := s.ready(be); err != nil {
		be.Close()
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.handler())
	defer func() {
		ts.Close()
		s.drain()
		if err := s.close(time.Second); err != nil {
			t.Error(err)
		}
	}()
	if cfg.modelName != "qwen2-tiny" {
		t.Fatalf("model name %q", cfg.modelName)
	}

	chat := `{"model":"qwen2-tiny","messages":[{"role":"user","content":"Name a colour."}],"max_tokens":6,"temperature":0}`
	res, body := post(t, ts, "/v1/chat/completions", chat)
	var c chatCompletion
	if err := json.Unmarshal(body, &c); err != nil || res.StatusCode != 200 || c.Choices[0].Message.Content == nil {
		t.Fatalf("%v %d %s", err, res.StatusCode, body)
	}
	// the prompt: Qwen's template around the message
	if c.Usage.PromptTokens < 8 || c.Usage.CompletionTokens < 1 || c.Usage.CompletionTokens > 6 {
		t.Fatalf("usage %+v", *c.Usage)
	}

	streamed, err := http.Post(ts.URL+"/v1/chat/completions", "application/json",
		strings.NewReader(strings.Replace(chat, `"max_tokens"`, `"stream":true,"max_tokens"`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	events := readSSE(t, streamed.Body)
	streamed.Body.Close()
	var text strings.Builder
	for _, e := range events[:len(events)-1] {
		var k chatChunk
		if err := json.Unmarshal([]byte(e), &k); err != nil {
			t.Fatalf("%v %s", err, e)
		}
		if d := k.Choices[0].Delta.Content; d != nil {
			text.WriteString(*d)
		}
	}
	if text.String() != *c.Choices[0].Message.Content {
		t.Fatalf("streamed %q, not streamed %q", text.String(), *c.Choices[0].Message.Content)
	}

	res, body = post(t, ts, "/v1/completions", `{"prompt":"Once upon a time","max_tokens":3,"seed":7}`)
	if res.StatusCode != 200 {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	res, body = post(t, ts, "/v1/embeddings", `{"input":["hello","world"]}`)
	var l struct {
		Data []struct{ Embedding []float32 }
	}
	if json.Unmarshal(body, &l); res.StatusCode != 200 || len(l.Data) != 2 || len(l.Data[0].Embedding) != 64 {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	// response_format: at temperature 1 only the grammar keeps the random
	// weights' output in shape
	schema := `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"],"additionalProperties":false}`
	for seed := 1; seed <= 3; seed++ {
		res, body = post(t, ts, "/v1/chat/completions", `{"messages":[{"role":"user","content":"JSON?"}],`+
			`"max_tokens":48,"temperature":1,"seed":`+strconv.Itoa(seed)+
			`,"response_format":{"type":"json_schema","json_schema":{"name":"n","schema":`+schema+`}}}`)
		var v struct{ N *int }
		if json.Unmarshal(body, &c); res.StatusCode != 200 || c.Choices[0].FinishReason != "stop" ||
			json.Unmarshal([]byte(*c.Choices[0].Message.Content), &v) != nil || v.N == nil {
			t.Fatalf("json_schema: %d %s", res.StatusCode, body)
		}
	}
	res, body = post(t, ts, "/v1/chat/completions", `{"messages":[{"role":"user","content":"JSON?"}],`+
		`"response_format":{"type":"json_schema","json_schema":{"schema":{"type":"object","required":5}}}}`)
	wantError(t, res, body, 400, "")

	long := `{"messages":[{"role":"user","content":"` + strings.Repeat("word ", 400) + `"}]}`
	res, body = post(t, ts, "/v1/chat/completions", long)
	wantError(t, res, body, 400, "context_length_exceeded")
}
