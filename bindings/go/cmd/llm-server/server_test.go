package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func newTestServer(t *testing.T, cfg config, be *fakeBackend) (*server, *httptest.Server) {
	t.Helper()
	if cfg.modelName == "" {
		cfg.modelName = "fake"
	}
	if cfg.maxBody == 0 {
		cfg.maxBody = 1 << 20
	}
	if cfg.parallel == 0 {
		cfg.parallel = 2
	}
	if be.ctxSize == 0 {
		be.ctxSize = 64
	}
	s := newServer(cfg, log.New(io.Discard, "", 0))
	if err := s.ready(be); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.handler())
	t.Cleanup(ts.Close)
	return s, ts
}

func post(t *testing.T, ts *httptest.Server, path, body string) (*http.Response, []byte) {
	t.Helper()
	res, err := http.Post(ts.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, b
}

// wantError checks an OpenAI-shaped error response.
func wantError(t *testing.T, res *http.Response, body []byte, status int, code string) {
	t.Helper()
	if res.StatusCode != status {
		t.Fatalf("status %d, want %d: %s", res.StatusCode, status, body)
	}
	var e struct {
		Error *struct {
			Message string  `json:"message"`
			Type    string  `json:"type"`
			Code    *string `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &e); err != nil || e.Error == nil || e.Error.Message == "" || e.Error.Type == "" {
		t.Fatalf("not an OpenAI error: %s", body)
	}
	if code != "" && (e.Error.Code == nil || *e.Error.Code != code) {
		t.Fatalf("code %v, want %q: %s", e.Error.Code, code, body)
	}
}

func TestChat(t *testing.T) {
	_, ts := newTestServer(t, config{}, &fakeBackend{})
	res, body := post(t, ts, "/v1/chat/completions",
		`{"model":"fake","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"one two three"}]}`)
	if res.StatusCode != 200 {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	var c chatCompletion
	if err := json.Unmarshal(body, &c); err != nil {
		t.Fatal(err)
	}
	if c.Object != "chat.completion" || c.Model != "fake" || !strings.HasPrefix(c.ID, "chatcmpl-") || len(c.Choices) != 1 {
		t.Fatalf("shape: %s", body)
	}
	ch := c.Choices[0]
	if ch.Message.Role != "assistant" || ch.Message.Content == nil || *ch.Message.Content != "three two one " ||
		ch.FinishReason != "stop" {
		t.Fatalf("answer: %s", body)
	}
	if c.Usage == nil || c.Usage.CompletionTokens != 3 || c.Usage.TotalTokens != c.Usage.PromptTokens+3 {
		t.Fatalf("usage: %s", body)
	}
}

func TestChatLengthStopAndParts(t *testing.T) {
	_, ts := newTestServer(t, config{}, &fakeBackend{})
	_, body := post(t, ts, "/v1/chat/completions",
		`{"messages":[{"role":"user","content":[{"type":"text","text":"a b "},{"type":"text","text":"c d"}]}],"max_tokens":2}`)
	var c chatCompletion
	json.Unmarshal(body, &c)
	if len(c.Choices) != 1 || *c.Choices[0].Message.Content != "d c " || c.Choices[0].FinishReason != "length" {
		t.Fatalf("max_tokens: %s", body)
	}
	_, body = post(t, ts, "/v1/chat/completions",
		`{"messages":[{"role":"user","content":"a b STOP c"}],"stop":["OP b","zzz"]}`)
	json.Unmarshal(body, &c)
	if *c.Choices[0].Message.Content != "c ST" || c.Choices[0].FinishReason != "stop" {
		t.Fatalf("stop: %s", body)
	}
}

func TestChatReasoningAndTools(t *testing.T) {
	_, ts := newTestServer(t, config{}, &fakeBackend{})
	_, body := post(t, ts, "/v1/chat/completions",
		`{"messages":[{"role":"user","content":"<tool_call> answer </think> hmm <think>"}]}`)
	var c chatCompletion
	if err := json.Unmarshal(body, &c); err != nil {
		t.Fatal(err)
	}
	m := c.Choices[0].Message
	if m.ReasoningContent != " hmm " || *m.Content != " answer " || len(m.ToolCalls) != 1 ||
		m.ToolCalls[0].Function.Name != "get_weather" || m.ToolCalls[0].Function.Arguments != `{"city":"Paris"}` ||
		m.ToolCalls[0].Type != "function" || c.Choices[0].FinishReason != "tool_calls" {
		t.Fatalf("%s", body)
	}
}

// readSSE returns the data of each event, checking the framing.
func readSSE(t *testing.T, r io.Reader) []string {
	t.Helper()
	var events []string
	sc := bufio.NewScanner(r)
	expectBlank := false
	for sc.Scan() {
		line := sc.Text()
		if expectBlank {
			if line != "" {
				t.Fatalf("no blank line after an event: %q", line)
			}
			expectBlank = false
			continue
		}
		if !strings.HasPrefix(line, "data: ") {
			t.Fatalf("not a data line: %q", line)
		}
		events = append(events, strings.TrimPrefix(line, "data: "))
		expectBlank = true
	}
	return events
}

func TestChatStream(t *testing.T) {
	_, ts := newTestServer(t, config{}, &fakeBackend{})
	res, err := http.Post(ts.URL+"/v1/chat/completions", "application/json", strings.NewReader(
		`{"messages":[{"role":"user","content":"x y z STOP w"}],"stream":true,"stop":"STOP",
		  "stream_options":{"include_usage":true}}`))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	events := readSSE(t, res.Body)
	if len(events) < 4 || events[len(events)-1] != "[DONE]" {
		t.Fatalf("events: %q", events)
	}
	var text strings.Builder
	var finish string
	var sawUsage bool
	for i, e := range events[:len(events)-1] {
		var c chatChunk
		if err := json.Unmarshal([]byte(e), &c); err != nil {
			t.Fatalf("event %d: %v: %s", i, err, e)
		}
		if c.Object != "chat.completion.chunk" || !strings.HasPrefix(c.ID, "chatcmpl-") {
			t.Fatalf("event %d: %s", i, e)
		}
		if c.Usage != nil {
			sawUsage = len(c.Choices) == 0 && c.Usage.CompletionTokens == 2
			continue
		}
		d := c.Choices[0]
		if (i == 0) != (d.Delta.Role == "assistant") {
			t.Fatalf("the role comes in the first chunk only: %s", e)
		}
		if finish != "" {
			t.Fatalf("a chunk after the finish: %s", e)
		}
		if d.FinishReason != nil {
			finish = *d.FinishReason
		}
		if d.Delta.Content != nil {
			text.WriteString(*d.Delta.Content)
		}
	}
	if text.String() != "w " || finish != "stop" || !sawUsage {
		t.Fatalf("text %q finish %q usage %v: %q", text.String(), finish, sawUsage, events)
	}
}

func TestCompletions(t *testing.T) {
	_, ts := newTestServer(t, config{}, &fakeBackend{})
	_, body := post(t, ts, "/v1/completions", `{"model":"fake","prompt":["p q r"],"max_tokens":2,"echo":true}`)
	var c textCompletion
	if err := json.Unmarshal(body, &c); err != nil {
		t.Fatal(err)
	}
	if c.Object != "text_completion" || c.Choices[0].Text != "p q rr q " || *c.Choices[0].FinishReason != "length" {
		t.Fatalf("%s", body)
	}
	res, err := http.Post(ts.URL+"/v1/completions", "application/json",
		strings.NewReader(`{"prompt":"p q r","stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	events := readSSE(t, res.Body)
	var text strings.Builder
	for _, e := range events[:len(events)-1] {
		var c textCompletion
		json.Unmarshal([]byte(e), &c)
		text.WriteString(c.Choices[0].Text)
	}
	if text.String() != "r q p " || events[len(events)-1] != "[DONE]" {
		t.Fatalf("%q", events)
	}
}

func TestEmbeddings(t *testing.T) {
	_, ts := newTestServer(t, config{}, &fakeBackend{})
	_, body := post(t, ts, "/v1/embeddings", `{"input":["ab","abc"]}`)
	var l struct {
		Object string
		Data   []struct {
			Index     int
			Embedding []float32
		}
		Usage struct {
			PromptTokens int `json:"prompt_tokens"`
		}
	}
	if err := json.Unmarshal(body, &l); err != nil || l.Object != "list" || len(l.Data) != 2 ||
		l.Data[1].Index != 1 || l.Data[1].Embedding[0] != 3 || l.Usage.PromptTokens != 4 {
		t.Fatalf("%v %s", err, body)
	}
	_, body = post(t, ts, "/v1/embeddings", `{"input":"abcd","encoding_format":"base64"}`)
	var b struct{ Data []struct{ Embedding string } }
	json.Unmarshal(body, &b)
	raw, err := base64.StdEncoding.DecodeString(b.Data[0].Embedding)
	if err != nil || len(raw) != 12 || raw[3] != 0x40 || raw[2] != 0x80 { // 4.0f = 0x40800000
		t.Fatalf("%v %x %s", err, raw, body)
	}
	res, body := post(t, ts, "/v1/embeddings", `{"input":[]}`)
	wantError(t, res, body, 400, "")
	res, body = post(t, ts, "/v1/embeddings", `{"input":[1,2]}`)
	wantError(t, res, body, 400, "")
}

func TestErrors(t *testing.T) {
	_, ts := newTestServer(t, config{maxBody: 2048}, &fakeBackend{ctxSize: 8})
	cases := []struct {
		path, body string
		status     int
		code       string
	}{
		{"/v1/chat/completions", `{"messages":[`, 400, ""},
		{"/v1/chat/completions", `not json`, 400, ""},
		{"/v1/chat/completions", `{}`, 400, ""},
		{"/v1/chat/completions", `{"messages":[]}`, 400, ""},
		{"/v1/chat/completions", `{"messages":"hi"}`, 400, ""},
		{"/v1/chat/completions", `{"messages":[{"role":"wizard","content":"x"}]}`, 400, ""},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":[{"type":"image_url"}]}]}`, 400, ""},
		{"/v1/chat/completions", `{"model":"gpt-4","messages":[{"role":"user","content":"x"}]}`, 404, "model_not_found"},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}],"n":2}`, 400, ""},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}],"temperature":3}`, 400, ""},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}],"top_p":0}`, 400, ""},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}],"max_tokens":0}`, 400, ""},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}],"max_tokens":"9"}`, 400, ""},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}],"stop":[""]}`, 400, ""},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}],"stop":5}`, 400, ""},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}],"logprobs":true}`, 400, ""},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"bad template"}]}`, 400, ""},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"no template"}]}`, 400, "no_chat_template"},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"a b c d e f g h i"}]}`, 400, "context_length_exceeded"},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"` + strings.Repeat("x", 4000) + `"}]}`, 413, "request_too_large"},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"panic"}]}`, 500, "internal_error"},
		{"/v1/completions", `{"prompt":["a","b"]}`, 400, ""},
		{"/v1/completions", `{"prompt":[1,2]}`, 400, ""},
		{"/v1/completions", `{"model":"other","prompt":"a"}`, 404, "model_not_found"},
		{"/v1/nothing", `{}`, 404, "not_found"},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}],"response_format":{"type":"xml"}}`, 400, ""},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}],"response_format":{"type":"json_schema"}}`, 400, ""},
	}
	for _, c := range cases {
		res, body := post(t, ts, c.path, c.body)
		if len(c.body) > 100 {
			c.body = c.body[:100]
		}
		t.Run(c.body, func(t *testing.T) { wantError(t, res, body, c.status, c.code) })
	}
	res, err := http.Get(ts.URL + "/v1/chat/completions")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	wantError(t, res, body, 405, "method_not_allowed")
	if res.Header.Get("Allow") != "POST" {
		t.Fatalf("Allow: %q", res.Header.Get("Allow"))
	}
	// the server still works
	res, body = post(t, ts, "/v1/chat/completions", `{"messages":[{"role":"user","content":"ok"}]}`)
	if res.StatusCode != 200 {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
}

func TestAPIKey(t *testing.T) {
	_, ts := newTestServer(t, config{apiKey: "sesame"}, &fakeBackend{})
	res, body := post(t, ts, "/v1/embeddings", `{"input":"x"}`)
	wantError(t, res, body, 401, "invalid_api_key")
	for _, key := range []string{"", "Bearer wrong", "sesame"} {
		req, _ := http.NewRequest("GET", ts.URL+"/v1/models", nil)
		if key != "" {
			req.Header.Set("Authorization", key)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 401 {
			t.Fatalf("key %q: %d", key, res.StatusCode)
		}
	}
	req, _ := http.NewRequest("GET", ts.URL+"/v1/models", nil)
	req.Header.Set("Authorization", "Bearer sesame")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	var l struct {
		Object string
		Data   []modelEntry
	}
	if json.Unmarshal(body, &l); res.StatusCode != 200 || l.Object != "list" || len(l.Data) != 1 ||
		l.Data[0].ID != "fake" || l.Data[0].Object != "model" {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	res, err = http.Get(ts.URL + "/health") // no key needed
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("%v %v", err, res)
	}
	res.Body.Close()
}

func TestHealthWhileLoading(t *testing.T) {
	s := newServer(config{modelName: "fake", maxBody: 1 << 20, parallel: 1}, log.New(io.Discard, "", 0))
	ts := httptest.NewServer(s.handler())
	defer ts.Close()
	for _, path := range []string{"/health", "/v1/models"} {
		res, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 503 {
			t.Fatalf("%s while loading: %d", path, res.StatusCode)
		}
	}
	s.ready(&fakeBackend{ctxSize: 16})
	res, err := http.Get(ts.URL + "/health")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), `"status":"ok"`) {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	s.drain()
	res, err = http.Get(ts.URL + "/health")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 503 {
		t.Fatalf("draining: %d", res.StatusCode)
	}
}

// waitFor polls cond for up to 5 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

func TestQueueFullAndDisconnect(t *testing.T) {
	be := &fakeBackend{delay: 20 * time.Millisecond, ctxSize: 512}
	s, ts := newTestServer(t, config{parallel: 1, queue: 1}, be)
	long := `{"messages":[{"role":"user","content":"` + strings.Repeat("w ", 200) + `"}],"stream":true}`

	// The first holds the slot, the second waits, the third is refused.
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/v1/chat/completions", strings.NewReader(long))
	first, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(first.Body).ReadString('\n')
	if !strings.HasPrefix(line, "data: ") {
		t.Fatalf("%q", line)
	}
	second := make(chan int, 1)
	go func() {
		res, body := post(t, ts, "/v1/chat/completions", `{"messages":[{"role":"user","content":"a b"}]}`)
		if !strings.Contains(string(body), "b a") {
			t.Errorf("%s", body)
		}
		second <- res.StatusCode
	}()
	waitFor(t, "the second request to queue", func() bool { _, w := s.slots.stats(); return w == 1 })
	res, body := post(t, ts, "/v1/chat/completions", `{"messages":[{"role":"user","content":"a"}]}`)
	wantError(t, res, body, 429, "queue_full")

	// The first client goes away: its generation stops at once, the
	// waiting request gets the slot.
	start := time.Now()
	cancel()
	first.Body.Close()
	if code := <-second; code != 200 {
		t.Fatalf("second: %d", code)
	}
	if d := time.Since(start); d > 2*time.Second { // the rest of the first would take 4 s
		t.Fatalf("the cancelled generation went on for %v", d)
	}
	waitFor(t, "the slot to be free", func() bool { b, _ := s.slots.stats(); return b == 0 })
	if be.slots[0].running.Load() != 0 {
		t.Fatal("still generating")
	}
}

func TestShutdownCancels(t *testing.T) {
	be := &fakeBackend{delay: 50 * time.Millisecond, ctxSize: 512}
	s, ts := newTestServer(t, config{parallel: 1, queue: 4}, be)
	long := `{"messages":[{"role":"user","content":"` + strings.Repeat("w ", 100) + `"}]}`
	results := make(chan int, 2)
	for i := 0; i < 2; i++ {
		go func() { res, _ := post(t, ts, "/v1/chat/completions", long); results <- res.StatusCode }()
	}
	waitFor(t, "one running, one queued", func() bool { b, w := s.slots.stats(); return b == 1 && w == 1 })
	s.drain()
	if code := <-results; code != 503 { // the queued one
		t.Fatalf("queued: %d", code)
	}
	s.cancelAll()
	if code := <-results; code != 503 {
		t.Fatalf("running: %d", code)
	}
	if err := s.close(time.Second); err != nil || !be.closed || !be.slots[0].closed.Load() {
		t.Fatalf("close: %v", err)
	}
}

func TestPoolFIFO(t *testing.T) {
	p := newPool([]int{7}, 3)
	got, _ := p.acquire(context.Background())
	order := make(chan int, 3)
	for i := 0; i < 3; i++ {
		i := i
		go func() {
			v, err := p.acquire(context.Background())
			if err == nil {
				order <- i
				p.release(v)
			}
		}()
		waitFor(t, "queued", func() bool { _, w := p.stats(); return w == i+1 })
	}
	if _, err := p.acquire(context.Background()); err != errQueueFull {
		t.Fatalf("%v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p.release(got)
	for i := 0; i < 3; i++ {
		if v := <-order; v != i {
			t.Fatalf("served %d, want %d", v, i)
		}
	}
	if _, err := p.acquire(ctx); err != nil { // free again; a done ctx does not matter then
		t.Fatal(err)
	}
}

func TestStopMatcher(t *testing.T) {
	for _, c := range []struct {
		pieces []string
		stops  []string
		want   string
		hit    bool
	}{
		{[]string{"hel", "lo wor", "ld"}, []string{"o w"}, "hell", true},
		{[]string{"ab", "c", "d"}, []string{"cd", "bcx"}, "ab", true},
		{[]string{"ab", "c", "e"}, []string{"cd", "bcx"}, "abce", false},
		{[]string{"x", "y"}, nil, "xy", false},
		{[]string{"aaa", "aab"}, []string{"aaab"}, "aa", true},
		{[]string{"é", "tait"}, []string{"ét"}, "", true},
	} {
		m := stopMatcher{stops: c.stops}
		var out strings.Builder
		hit := false
		for _, p := range c.pieces {
			o, h := m.add(p)
			out.WriteString(o)
			if h {
				hit = true
				break
			}
		}
		if !hit {
			out.WriteString(m.flush())
		}
		if out.String() != c.want || hit != c.hit {
			t.Errorf("%q %q: got %q %v", c.pieces, c.stops, out.String(), hit)
		}
	}
}

func TestChatStreamReasoningAndTools(t *testing.T) {
	_, ts := newTestServer(t, config{}, &fakeBackend{})
	res, err := http.Post(ts.URL+"/v1/chat/completions", "application/json", strings.NewReader(
		`{"messages":[{"role":"user","content":"<tool_call> answer </think> hmm <think>"}],"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	events := readSSE(t, res.Body)
	var reasoning, content strings.Builder
	var calls []toolCallOut
	var finish string
	for _, e := range events[:len(events)-1] {
		var c chatChunk
		if err := json.Unmarshal([]byte(e), &c); err != nil {
			t.Fatalf("%v: %s", err, e)
		}
		d := c.Choices[0]
		if d.Delta.ReasoningContent != nil {
			reasoning.WriteString(*d.Delta.ReasoningContent)
		}
		if d.Delta.Content != nil {
			content.WriteString(*d.Delta.Content)
		}
		calls = append(calls, d.Delta.ToolCalls...)
		if d.FinishReason != nil {
			finish = *d.FinishReason
		}
	}
	if reasoning.String() != " hmm " || content.String() != " answer " || len(calls) != 1 ||
		calls[0].Function.Name != "get_weather" || calls[0].Index == nil || *calls[0].Index != 0 ||
		finish != "tool_calls" {
		t.Fatalf("reasoning %q content %q calls %+v finish %q: %q", reasoning.String(), content.String(),
			calls, finish, events)
	}
}

func TestChatSplitter(t *testing.T) {
	for _, c := range []struct {
		pieces            []string
		toolCalls         bool
		reasoning, answer string
	}{
		{[]string{"  <th", "ink>why", "</thi", "nk>so"}, false, "why", "so"},
		{[]string{"<think>all reasoning"}, false, "all reasoning", ""},
		{[]string{"  plain <think> later"}, false, "", "  plain <think> later"},
		{[]string{" <t", "ool"}, false, "", " <tool"},
		{[]string{"text <tool", "_call>{}", "</tool_call>"}, true, "", "text "},
		{[]string{"text <tool", "_call>bad"}, false, "", "text <tool_call>bad"},
		{[]string{"   "}, false, "", "   "},
	} {
		var s chatSplitter
		var reasoning, answer strings.Builder
		for _, p := range c.pieces {
			r, a := s.add(p)
			reasoning.WriteString(r)
			answer.WriteString(a)
		}
		r, a := s.finish(c.toolCalls)
		reasoning.WriteString(r)
		answer.WriteString(a)
		if reasoning.String() != c.reasoning || answer.String() != c.answer {
			t.Errorf("%q: reasoning %q answer %q", c.pieces, reasoning.String(), answer.String())
		}
	}
}

func TestPoolWaiterLeaves(t *testing.T) {
	p := newPool([]int{1}, 2)
	item, _ := p.acquire(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	left := make(chan error, 1)
	go func() { _, err := p.acquire(ctx); left <- err }()
	waitFor(t, "queued", func() bool { _, w := p.stats(); return w == 1 })
	cancel()
	if err := <-left; err != context.Canceled {
		t.Fatalf("%v", err)
	}
	if _, w := p.stats(); w != 0 {
		t.Fatal("the waiter is still queued")
	}
	p.release(item)
	if b, _ := p.stats(); b != 0 {
		t.Fatal("the item went to a waiter that left")
	}
	p.close()
	if _, err := p.acquire(context.Background()); err != errShuttingDown {
		t.Fatalf("after close: %v", err)
	}
}
