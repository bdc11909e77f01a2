package main

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"libllm.dev/llm"
)

// The server's life: loading the model, serving, draining at shutdown.
const (
	stateLoading int32 = iota
	stateReady
	stateDraining
)

// config is what the command line sets.
type config struct {
	modelName string
	apiKey    string
	maxBody   int64
	parallel  int
	queue     int
}

// server answers the OpenAI endpoints. It keeps nothing between requests:
// each request renders its own prompt into a freshly reset slot.
type server struct {
	cfg     config
	created int64
	log     *log.Logger
	state   atomic.Int32
	be      backend // set before state becomes ready
	slots   *pool[slot]
	embeds  *pool[int] // bounds concurrent Embed calls
	running sync.WaitGroup
}

func newServer(cfg config, logger *log.Logger) *server {
	return &server{cfg: cfg, created: time.Now().Unix(), log: logger}
}

// ready makes N slots over be and starts serving requests.
func (s *server) ready(be backend) error {
	slots := make([]slot, 0, s.cfg.parallel)
	for i := 0; i < s.cfg.parallel; i++ {
		sl, err := be.NewSlot()
		if err != nil {
			for _, o := range slots {
				o.Close()
			}
			return err
		}
		slots = append(slots, sl)
	}
	tokens := make([]int, s.cfg.parallel)
	s.be = be
	s.slots = newPool(slots, s.cfg.queue)
	s.embeds = newPool(tokens, s.cfg.queue)
	s.state.Store(stateReady)
	return nil
}

// drain refuses new requests and the queued ones (503).
func (s *server) drain() {
	s.state.Store(stateDraining)
	if s.slots != nil {
		s.slots.close()
		s.embeds.close()
	}
}

// cancelAll stops the running generations.
func (s *server) cancelAll() {
	if s.slots != nil {
		for _, sl := range s.slots.items() {
			sl.Cancel()
		}
	}
}

// close waits up to wait for the running requests, then frees the slots
// and the model (not if a request is stuck: they are still in use).
func (s *server) close(wait time.Duration) error {
	done := make(chan struct{})
	go func() { s.running.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(wait):
		return errors.New("requests still running; not freeing the model")
	}
	if s.slots == nil {
		return nil
	}
	for _, sl := range s.slots.items() {
		sl.Close()
	}
	return s.be.Close()
}

// handler routes the endpoints through the common checks.
func (s *server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/health", s.endpoint(http.MethodGet, false, s.handleHealth))
	mux.Handle("/v1/models", s.endpoint(http.MethodGet, true, s.handleModels))
	mux.Handle("/v1/models/", s.endpoint(http.MethodGet, true, s.handleModel))
	mux.Handle("/v1/chat/completions", s.endpoint(http.MethodPost, true, s.handleChat))
	mux.Handle("/v1/completions", s.endpoint(http.MethodPost, true, s.handleCompletions))
	mux.Handle("/v1/embeddings", s.endpoint(http.MethodPost, true, s.handleEmbeddings))
	mux.Handle("/", s.endpoint("", false, func(w http.ResponseWriter, r *http.Request) error {
		return newAPIError(404, "invalid_request_error", "not_found", "no endpoint %s", r.URL.Path)
	}))
	return mux
}

// endpoint wraps a handler: method, API key, readiness, panics, and the
// error it returns written as OpenAI's error JSON.
func (s *server) endpoint(method string, auth bool, h func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rw := &trackingWriter{ResponseWriter: w}
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.Printf("panic serving %s %s: %v\n%s", r.Method, r.URL.Path, p, debug.Stack())
				if !rw.wrote {
					writeError(rw, newAPIError(500, "server_error", "internal_error", "internal error"))
				}
			}
		}()
		err := s.check(r, method, auth)
		if err == nil {
			err = h(rw, r)
		}
		if err != nil {
			s.fail(rw, r, err)
		}
	})
}

// check is what every request must pass before its handler runs.
func (s *server) check(r *http.Request, method string, auth bool) error {
	if method != "" && r.Method != method {
		e := newAPIError(405, "invalid_request_error", "method_not_allowed",
			"%s is not allowed on %s; use %s", r.Method, r.URL.Path, method)
		return e
	}
	if auth && s.cfg.apiKey != "" {
		auth := r.Header.Get("Authorization")
		key := strings.TrimPrefix(auth, "Bearer ")
		if key == auth || subtle.ConstantTimeCompare([]byte(key), []byte(s.cfg.apiKey)) != 1 {
			return newAPIError(401, "invalid_request_error", "invalid_api_key",
				"missing or wrong API key (Authorization: Bearer KEY)")
		}
	}
	if r.URL.Path == "/health" {
		return nil
	}
	switch s.state.Load() {
	case stateLoading:
		return newAPIError(503, "server_error", "loading", "the model is loading")
	case stateDraining:
		return errShuttingDown
	}
	return nil
}

// fail writes err as an error response, unless the client is gone or the
// response has begun (a stream reports errors itself).
func (s *server) fail(w *trackingWriter, r *http.Request, err error) {
	if w.wrote || r.Context().Err() != nil {
		return
	}
	e := s.toAPIError(err)
	if e.status >= 500 {
		s.log.Printf("%s %s: %v", r.Method, r.URL.Path, err)
	}
	if e.status == 405 {
		w.Header().Set("Allow", allowed(r.URL.Path))
	}
	writeError(w, e)
}

func allowed(path string) string {
	if strings.HasPrefix(path, "/v1/") && !strings.HasPrefix(path, "/v1/models") {
		return http.MethodPost
	}
	return http.MethodGet
}

// toAPIError maps errors to HTTP statuses: the client's mistakes are 4xx.
func (s *server) toAPIError(err error) *apiError {
	var e *apiError
	var le *llm.Error
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, errQueueFull):
		return newAPIError(429, "rate_limit_error", "queue_full", "%v; retry later", err)
	case errors.Is(err, errShuttingDown):
		return newAPIError(503, "server_error", "shutting_down", "%v", err)
	case errors.Is(err, llm.ErrContextFull):
		return newAPIError(400, "invalid_request_error", "context_length_exceeded",
			"the prompt does not fit in the context (%d tokens)", s.be.ContextSize())
	case errors.Is(err, llm.ErrTemplate), errors.Is(err, llm.ErrInvalidArgument),
		errors.Is(err, llm.ErrTokenOutOfRange), errors.Is(err, llm.ErrGrammar):
		return newAPIError(400, "invalid_request_error", "", "%v", strings.TrimPrefix(err.Error(), "llm: "))
	case errors.Is(err, llm.ErrUnsupported):
		return newAPIError(400, "invalid_request_error", "unsupported", "%v", strings.TrimPrefix(err.Error(), "llm: "))
	case errors.Is(err, llm.ErrOutOfMemory):
		return newAPIError(503, "server_error", "out_of_memory", "out of memory")
	case errors.As(err, &le):
		return newAPIError(500, "server_error", "internal_error", "%v", strings.TrimPrefix(err.Error(), "llm: "))
	}
	return newAPIError(500, "server_error", "internal_error", "internal error")
}

func writeError(w http.ResponseWriter, e *apiError) {
	writeJSON(w, e.status, struct {
		Error *apiError `json:"error"`
	}{e})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status = 500
		body = []byte(`{"error":{"message":"internal error","type":"server_error","param":null,"code":"internal_error"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}

// trackingWriter remembers whether the response has begun.
type trackingWriter struct {
	http.ResponseWriter
	wrote bool
}

func (w *trackingWriter) WriteHeader(code int) {
	w.wrote = true
	w.ResponseWriter.WriteHeader(code)
}

func (w *trackingWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

func (w *trackingWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		w.wrote = true
		f.Flush()
	}
}

// readJSON decodes a request body of at most cfg.maxBody bytes into v.
func (s *server) readJSON(w http.ResponseWriter, r *http.Request, v any) error {
	tooLarge := newAPIError(413, "invalid_request_error", "request_too_large",
		"the request body is larger than %d bytes", s.cfg.maxBody)
	if r.ContentLength > s.cfg.maxBody {
		return tooLarge
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.maxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return tooLarge
		}
		return badRequest("", "reading the request body: %v", err)
	}
	if err := json.Unmarshal(body, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return badRequest(te.Field, "%s: expected %s, got JSON %s", te.Field, te.Type, te.Value)
		}
		return badRequest("", "the body is not valid JSON: %v", err)
	}
	return nil
}

// checkModel accepts an absent model or the served name.
func (s *server) checkModel(model *string) error {
	if model != nil && *model != s.cfg.modelName {
		e := newAPIError(404, "invalid_request_error", "model_not_found",
			"model %q does not exist; this server serves %q", *model, s.cfg.modelName)
		param := "model"
		e.Param = &param
		return e
	}
	return nil
}

func (s *server) handleHealth(w http.ResponseWriter, r *http.Request) error {
	switch s.state.Load() {
	case stateLoading:
		writeJSON(w, 503, map[string]string{"status": "loading"})
	case stateDraining:
		writeJSON(w, 503, map[string]string{"status": "shutting down"})
	default:
		busy, waiting := s.slots.stats()
		writeJSON(w, 200, map[string]any{"status": "ok", "slots_busy": busy,
			"slots": s.cfg.parallel, "queued": waiting})
	}
	return nil
}

func (s *server) modelEntry() modelEntry {
	return modelEntry{ID: s.cfg.modelName, Object: "model", Created: s.created, OwnedBy: "libllm"}
}

func (s *server) handleModels(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, 200, map[string]any{"object": "list", "data": []modelEntry{s.modelEntry()}})
	return nil
}

func (s *server) handleModel(w http.ResponseWriter, r *http.Request) error {
	name := strings.TrimPrefix(r.URL.Path, "/v1/models/")
	if err := s.checkModel(&name); err != nil {
		return err
	}
	writeJSON(w, 200, s.modelEntry())
	return nil
}

// withSlot runs fn with a reset slot, waiting in the queue if needed. A
// client going away cancels the generation at once (and the wait).
func (s *server) withSlot(ctx context.Context, fn func(sl slot) error) error {
	sl, err := s.slots.acquire(ctx)
	if err != nil {
		return err
	}
	s.running.Add(1)
	defer s.running.Done()
	defer s.slots.release(sl)
	if err := sl.Reset(); err != nil { // also drops a stale Cancel
		return err
	}
	done := make(chan struct{})
	watcher := make(chan struct{})
	go func() {
		defer close(watcher)
		select {
		case <-ctx.Done():
			sl.Cancel()
		case <-done:
		}
	}()
	defer func() { close(done); <-watcher }()
	return fn(sl)
}

// generation is one request's prompt and settings.
type generation struct {
	prompt       string
	promptTokens int
	params       genParams
	stops        []string
}

// outcome is a finished generation.
type outcome struct {
	text             string // after stop trimming
	completionTokens int
	finishReason     string // "stop" or "length"
}

// generate runs g on a slot; emit receives the text as it may be shown
// (stop strings trimmed) and returns false when the client is gone.
func (s *server) generate(ctx context.Context, g *generation, emit func(string) bool) (outcome, error) {
	var out outcome
	var text strings.Builder
	err := s.withSlot(ctx, func(sl slot) error {
		m := stopMatcher{stops: g.stops}
		hit, gone := false, false
		res, err := sl.Generate(g.prompt, g.params, func(piece string) bool {
			chunk, h := m.add(piece)
			hit = h
			if chunk != "" {
				text.WriteString(chunk)
				if emit != nil && !emit(chunk) {
					gone = true
					return false
				}
			}
			return !hit
		})
		if err != nil {
			return err
		}
		if gone {
			return context.Canceled
		}
		if !hit {
			if rest := m.flush(); rest != "" {
				text.WriteString(rest)
				if emit != nil && !emit(rest) {
					return context.Canceled
				}
			}
		}
		out.completionTokens = res.tokens
		out.finishReason = "stop"
		if !hit && (res.stop == llm.StopMaxTokens || res.stop == llm.StopContextFull) {
			out.finishReason = "length"
		}
		return nil
	})
	out.text = text.String()
	if err != nil && s.state.Load() == stateDraining && errors.Is(err, llm.ErrCancelled) {
		err = errShuttingDown
	}
	return out, err
}

// prepare validates the sampling fields against a prompt of promptTokens
// tokens.
func (s *server) prepare(req *sampling, prompt string) (*generation, error) {
	if err := s.checkModel(req.Model); err != nil {
		return nil, err
	}
	if req.N != nil && *req.N != 1 {
		return nil, badRequest("n", "only n = 1 is supported")
	}
	if lp := string(req.Logprobs); lp != "" && lp != "null" && lp != "false" && lp != "0" {
		return nil, badRequest("logprobs", "logprobs are not supported")
	}
	g := &generation{prompt: prompt, params: genParams{temperature: 1, topP: 1}}
	if !inRange(req.Temperature, 0, 2) {
		return nil, badRequest("temperature", "temperature must be between 0 and 2")
	}
	if req.Temperature != nil {
		g.params.temperature = float32(*req.Temperature)
	}
	if !inRange(req.TopP, 0, 1) || (req.TopP != nil && *req.TopP == 0) {
		return nil, badRequest("top_p", "top_p must be in (0, 1]")
	}
	if req.TopP != nil {
		g.params.topP = float32(*req.TopP)
	}
	g.params.seed = randomSeed()
	if req.Seed != nil {
		g.params.seed = uint64(*req.Seed)
	}
	stops, err := stringOrList(req.Stop, "stop")
	if err != nil {
		return nil, err
	}
	if len(stops) > maxStops {
		return nil, badRequest("stop", "at most %d stop strings", maxStops)
	}
	for _, st := range stops {
		if st == "" || len(st) > maxStopLength {
			return nil, badRequest("stop", "stop strings must have 1 to %d bytes", maxStopLength)
		}
	}
	g.stops = stops
	if rf := req.ResponseFormat; rf != nil && rf.Type != "text" {
		schema, err := responseSchema(rf.Type, rf.JSONSchema)
		if err != nil {
			return nil, err
		}
		g.params.jsonSchema = schema
	}

	n, err := s.be.CountTokens(prompt)
	if err != nil {
		return nil, err
	}
	room := s.be.ContextSize() - n
	if room < 1 {
		return nil, newAPIError(400, "invalid_request_error", "context_length_exceeded",
			"the prompt has %d tokens; the context holds %d", n, s.be.ContextSize())
	}
	g.promptTokens = n
	g.params.maxTokens = room
	limit, param := req.MaxTokens, "max_tokens"
	if req.MaxCompletionTokens != nil {
		limit, param = req.MaxCompletionTokens, "max_completion_tokens"
	}
	if limit != nil {
		if *limit < 1 {
			return nil, badRequest(param, "%s must be at least 1", param)
		}
		if *limit < room {
			g.params.maxTokens = *limit
		}
	}
	return g, nil
}

// sse writes a Server-Sent Events stream, flushed per event.
type sse struct {
	w      http.ResponseWriter
	failed bool
}

func startSSE(w http.ResponseWriter) *sse {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(200)
	return &sse{w: w}
}

// send writes one `data:` event; false once the client is gone.
func (e *sse) send(v any) bool {
	var body []byte
	if raw, ok := v.(string); ok {
		body = []byte(raw)
	} else {
		var err error
		if body, err = json.Marshal(v); err != nil {
			return false
		}
	}
	if e.failed {
		return false
	}
	if _, err := fmt.Fprintf(e.w, "data: %s\n\n", body); err != nil {
		e.failed = true
		return false
	}
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
	return true
}

// sendError ends a stream that failed after it began.
func (s *server) sendError(e *sse, err error) {
	if errors.Is(err, context.Canceled) || errors.Is(err, llm.ErrCancelled) {
		return // the client is gone (generate turns a shutdown's cancel into errShuttingDown)
	}
	ae := s.toAPIError(err)
	if ae.status >= 500 {
		s.log.Printf("stream failed: %v", err)
	}
	e.send(struct {
		Error *apiError `json:"error"`
	}{ae})
}
