// Command llm-server serves a libllm model over an OpenAI-compatible HTTP
// API: /v1/chat/completions, /v1/completions, /v1/embeddings, /v1/models
// and /health.
//
//	llm-server -m MODEL [--host 127.0.0.1] [--port 8080] [--parallel 4] ...
//
// It keeps --parallel sessions (slots) over one model; a request takes a
// free slot or waits in a bounded queue. It is stateless between requests.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// options are the command line.
type options struct {
	model, tokenizer, host, apiKey, modelName string
	port, parallel, ctx, threads, queue       int
	maxBody                                   int64
	readTimeout, writeTimeout, grace          time.Duration
}

func parseOptions(args []string, stderr io.Writer) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("llm-server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.model, "m", "", "the model: a llama2.c .bin, a GGUF file or a Hugging Face folder (required)")
	fs.StringVar(&o.tokenizer, "tokenizer", "", "the tokenizer of a llama2.c checkpoint")
	fs.StringVar(&o.host, "host", "127.0.0.1", "the address to listen on")
	fs.IntVar(&o.port, "port", 8080, "the port to listen on (0 picks a free one)")
	fs.IntVar(&o.parallel, "parallel", 4, "slots: requests generating at once")
	fs.IntVar(&o.ctx, "ctx", 4096, "positions per slot (prompt + answer); 0 or more than the model's = the model's maximum")
	fs.IntVar(&o.threads, "threads", 0, "compute threads per slot (0 = one per physical core)")
	fs.IntVar(&o.queue, "queue", 64, "requests that may wait for a slot; more get 429")
	fs.StringVar(&o.apiKey, "api-key", "", "require Authorization: Bearer KEY (default $LLM_API_KEY)")
	fs.StringVar(&o.modelName, "model-name", "", "the model's name in the API (default: the model file's base name)")
	fs.Int64Var(&o.maxBody, "max-body", 1<<20, "the largest request body in bytes")
	fs.DurationVar(&o.readTimeout, "read-timeout", 15*time.Second, "time to read a request's headers and body")
	fs.DurationVar(&o.writeTimeout, "write-timeout", 30*time.Second, "time one write to a client may take")
	fs.DurationVar(&o.grace, "grace", 5*time.Second, "at shutdown, how long running requests may finish before they are cancelled")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	switch {
	case fs.NArg() > 0:
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case o.model == "":
		return nil, errors.New("-m MODEL is required")
	case o.port < 0 || o.port > 65535:
		return nil, errors.New("--port must be 0..65535")
	case o.parallel < 1 || o.parallel > 1024:
		return nil, errors.New("--parallel must be 1..1024")
	case o.queue < 0 || o.queue > 1<<20:
		return nil, errors.New("--queue must be 0..1048576")
	case o.ctx < 0 || o.threads < 0:
		return nil, errors.New("--ctx and --threads must be >= 0")
	case o.maxBody < 1024:
		return nil, errors.New("--max-body must be at least 1024")
	case o.readTimeout <= 0 || o.writeTimeout <= 0 || o.grace < 0:
		return nil, errors.New("the timeouts must be positive")
	}
	if o.modelName == "" {
		o.modelName = defaultModelName(o.model)
	}
	if o.apiKey == "" { // not the flag's default: -h would print it
		o.apiKey = os.Getenv("LLM_API_KEY")
	}
	return o, nil
}

// defaultModelName is the model path's base name, without the extension of
// a file.
func defaultModelName(path string) string {
	name := filepath.Base(filepath.Clean(path))
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		if ext := filepath.Ext(name); ext != "" && ext != name {
			name = strings.TrimSuffix(name, ext)
		}
	}
	return name
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	o, err := parseOptions(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "llm-server:", err)
		return 2
	}
	logger := log.New(stderr, "llm-server: ", log.LstdFlags)
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)

	// Listen first: /health answers 503 while the model loads.
	ln, err := net.Listen("tcp", net.JoinHostPort(o.host, strconv.Itoa(o.port)))
	if err != nil {
		logger.Print(err)
		return 1
	}
	s := newServer(config{modelName: o.modelName, apiKey: o.apiKey, maxBody: o.maxBody,
		parallel: o.parallel, queue: o.queue}, logger)
	srv := &http.Server{
		Handler:           s.handler(),
		ReadHeaderTimeout: o.readTimeout,
		ReadTimeout:       o.readTimeout,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          logger,
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(writeDeadlineListener{ln, o.writeTimeout}) }()

	loaded := make(chan error, 1)
	var be *modelBackend
	go func() {
		var err error
		if be, err = newModelBackend(o.model, o.tokenizer, o.ctx, o.threads); err == nil {
			if err = s.ready(be); err != nil {
				be.Close()
			}
		}
		loaded <- err
	}()
	select {
	case err := <-loaded:
		if err != nil {
			logger.Print(err)
			srv.Close()
			return 1
		}
	case sig := <-signals:
		logger.Printf("%v while loading the model: exiting", sig)
		srv.Close()
		return 0
	}
	fmt.Fprintf(stdout, "listening on http://%s\n", hostPort(ln.Addr()))
	if f, ok := stdout.(*os.File); ok {
		f.Sync()
	}

	select {
	case sig := <-signals:
		logger.Printf("%v: shutting down", sig)
	case err := <-served:
		logger.Print(err)
		return 1
	}
	return shutdown(s, srv, o.grace, logger)
}

// shutdown stops accepting, lets running requests finish for grace, then
// cancels them, and frees the slots and the model.
func shutdown(s *server, srv *http.Server, grace time.Duration, logger *log.Logger) int {
	s.drain()
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		logger.Printf("grace period over: cancelling the running requests")
		s.cancelAll()
		ctx2, cancel2 := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel2()
		if srv.Shutdown(ctx2) != nil {
			srv.Close()
		}
	}
	if err := s.close(5 * time.Second); err != nil {
		logger.Print(err)
		return 1
	}
	return 0
}

// hostPort is addr as a URL's host (IPv6 in brackets).
func hostPort(addr net.Addr) string {
	if tcp, ok := addr.(*net.TCPAddr); ok {
		return net.JoinHostPort(tcp.IP.String(), strconv.Itoa(tcp.Port))
	}
	return addr.String()
}

// writeDeadlineListener gives each write to a client at most d: a client
// that stops reading cannot hold a slot (its stream fails, the generation
// stops).
type writeDeadlineListener struct {
	net.Listener
	d time.Duration
}

func (l writeDeadlineListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &writeDeadlineConn{Conn: c, d: l.d}, nil
}

type writeDeadlineConn struct {
	net.Conn
	d time.Duration
}

func (c *writeDeadlineConn) Write(b []byte) (int, error) {
	if err := c.Conn.SetWriteDeadline(time.Now().Add(c.d)); err != nil {
		return 0, err
	}
	return c.Conn.Write(b)
}
