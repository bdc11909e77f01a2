package llm

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"libllm.dev/llm/internal/capi"
)

// sharedDir holds the test models and goldens (LLM_SHARED_DIR, set by CTest).
func sharedDir() string {
	if d := os.Getenv("LLM_SHARED_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "shared")
}

type golden struct {
	Prompt       string  `json:"prompt"`
	PromptIDs    []int32 `json:"prompt_token_ids"`
	GeneratedIDs []int32 `json:"generated_token_ids"`
	Text         string  `json:"text"`
}

// readGolden reads run.c's greedy output for "Once upon a time".
func readGolden(t *testing.T) golden { return readGoldenNamed(t, "once_upon") }

func readGoldenNamed(t *testing.T, name string) golden {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(sharedDir(), "golden", "llama2c", "stories260K_"+name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.GeneratedIDs) < 64 {
		t.Fatalf("golden has only %d generated ids", len(g.GeneratedIDs))
	}
	return g
}

func loadStories(t *testing.T) *Model {
	t.Helper()
	m, err := Load(filepath.Join(sharedDir(), "models", "stories260K.bin"),
		&ModelOptions{TokenizerPath: filepath.Join(sharedDir(), "models", "tok512.bin")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func newSession(t *testing.T, m *Model) *Session {
	t.Helper()
	s, err := m.NewSession(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestVersionAndSystemInfo(t *testing.T) {
	if v := Version(); v != capi.LLM_VERSION_STRING {
		t.Errorf("Version() = %q, the header says %q", v, capi.LLM_VERSION_STRING)
	}
	const level = `(scalar|neondot|neon|avx2|avx2vnni|avx512|avx512vnni|amx)`
	info := SystemInfo()
	m := regexp.MustCompile(`^simd=` + level + ` simd_best=` + level + ` cores=[1-9][0-9]*( |$)`).
		FindStringSubmatch(info)
	if m == nil {
		t.Fatalf("SystemInfo() = %q", info)
	}
	if os.Getenv("LLM_SIMD") == "" && m[1] != m[2] {
		t.Errorf("SystemInfo() = %q: without LLM_SIMD the best level runs", info)
	}
}

func TestInfo(t *testing.T) {
	m := loadStories(t)
	want := Info{Arch: "llama", VocabSize: 512, ContextLength: 512, EmbeddingSize: 64, Layers: 5,
		Heads: 8, KVHeads: 4, WeightType: WeightsF32, BOS: 1, EOS: 2}
	got := m.Info()
	if got.Params <= 0 || got.WeightBytes <= 0 {
		t.Errorf("Params %d, WeightBytes %d", got.Params, got.WeightBytes)
	}
	got.Params, got.WeightBytes = 0, 0
	if got != want {
		t.Errorf("Info() = %+v, want %+v", got, want)
	}
	if m.VocabSize() != 512 || !m.IsEndOfGeneration(1) || m.IsEndOfGeneration(403) {
		t.Error("VocabSize or IsEndOfGeneration wrong")
	}
}

func TestTokenizeRoundTrip(t *testing.T) {
	g := readGolden(t)
	m := loadStories(t)
	ids, err := m.Tokenize(g.Prompt, AddSpecial)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ids, g.PromptIDs) {
		t.Fatalf("Tokenize(%q) = %v, want %v", g.Prompt, ids, g.PromptIDs)
	}
	for _, text := range []string{g.Prompt, "Lily saw a big, red ball.\nShe said: \"Hi!\"", "", "héllo ✓"} {
		ids, err := m.Tokenize(text, AddSpecial)
		if err != nil {
			t.Fatal(err)
		}
		back, err := m.Detokenize(ids)
		if err != nil {
			t.Fatal(err)
		}
		if back != text {
			t.Errorf("Detokenize(Tokenize(%q)) = %q", text, back)
		}
	}
}

func TestGreedyMatchesGolden(t *testing.T) {
	g := readGolden(t)
	s := newSession(t, loadStories(t))
	res, err := s.Generate(g.Prompt, Greedy(), MaxTokens(len(g.GeneratedIDs)))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Tokens, g.GeneratedIDs) {
		t.Fatalf("tokens = %v\nwant     %v", res.Tokens, g.GeneratedIDs)
	}
	if got := g.Prompt + res.Text + "\n"; got != g.Text {
		t.Errorf("text = %q\nwant   %q", got, g.Text)
	}
	if res.Stop != StopMaxTokens {
		t.Errorf("Stop = %v, want StopMaxTokens", res.Stop)
	}
	if p := s.Position(); p != len(g.PromptIDs)+len(g.GeneratedIDs) {
		t.Errorf("Position() = %d", p)
	}
}

func TestFP16KVCache(t *testing.T) {
	g := readGolden(t)
	m := loadStories(t)
	s, err := m.NewSession(&SessionOptions{KVType: KVF16})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Generate(g.Prompt, Greedy(), MaxTokens(30))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Tokens, g.GeneratedIDs[:30]) {
		t.Errorf("tokens = %v\nwant     %v", res.Tokens, g.GeneratedIDs[:30])
	}
	if _, err := m.NewSession(&SessionOptions{KVType: 9}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("KVType 9: err = %v", err)
	}
}

func TestStopsAtEOS(t *testing.T) {
	g := readGoldenNamed(t, "pigs_punct") // run.c stopped at a sampled BOS
	s := newSession(t, loadStories(t))
	res, err := s.Generate(g.Prompt, Greedy())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Tokens, g.GeneratedIDs) || res.Stop != StopEOS {
		t.Fatalf("Stop %v after %d tokens, want StopEOS after %d", res.Stop, len(res.Tokens), len(g.GeneratedIDs))
	}
	if got := g.Prompt + res.Text + "\n"; got != g.Text {
		t.Errorf("text = %q\nwant   %q", got, g.Text)
	}
	s.Reset()
	n := len(g.GeneratedIDs)
	res, err = s.Generate(g.Prompt, Greedy(), StopAtEOS(false), MaxTokens(n+3))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tokens) != n+3 || res.Tokens[n] != 1 || !reflect.DeepEqual(res.Tokens[:n], g.GeneratedIDs) {
		t.Errorf("StopAtEOS(false): %v", res.Tokens[n-2:])
	}
}

func TestCancel(t *testing.T) {
	s := newSession(t, loadStories(t))
	s.Cancel() // consumed by the next call
	if _, err := s.Generate("Once"); !errors.Is(err, ErrCancelled) {
		t.Fatalf("err = %v, want ErrCancelled", err)
	}
	if _, err := s.Generate("Once", MaxTokens(3)); err != nil {
		t.Fatalf("after a cancelled call: %v", err)
	}
}

func TestFinalizersFreeForgottenObjects(t *testing.T) {
	runtime.GC() // objects of earlier tests are closed by t.Cleanup
	if n := liveNative.Load(); n != 0 {
		t.Fatalf("%d native objects alive before the test", n)
	}
	for i := 0; i < 3; i++ {
		m, err := Load(filepath.Join(sharedDir(), "models", "stories260K.bin"),
			&ModelOptions{TokenizerPath: filepath.Join(sharedDir(), "models", "tok512.bin")})
		if err != nil {
			t.Fatal(err)
		}
		s, err := m.NewSession(nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Generate("Once", Greedy(), MaxTokens(3)); err != nil {
			t.Fatal(err)
		}
	}
	// Finalizers run on their own goroutine after a collection; a session's
	// runs before its model's can. Give them a bounded number of rounds.
	for i := 0; i < 100 && liveNative.Load() != 0; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if n := liveNative.Load(); n != 0 {
		t.Errorf("%d native objects still alive", n)
	}
}

func TestStreamPieces(t *testing.T) {
	g := readGolden(t)
	s := newSession(t, loadStories(t))
	var pieces []Piece
	res, err := s.Stream(g.Prompt, func(p Piece) bool {
		pieces = append(pieces, p)
		return len(pieces) < 10
	}, Greedy())
	if err != nil {
		t.Fatal(err)
	}
	if len(pieces) != 10 || res.Stop != StopCallback {
		t.Fatalf("%d pieces, Stop %v; want 10 pieces, StopCallback", len(pieces), res.Stop)
	}
	var text strings.Builder
	for i, p := range pieces {
		if p.Token != g.GeneratedIDs[i] {
			t.Errorf("piece %d token %d, want %d", i, p.Token, g.GeneratedIDs[i])
		}
		text.WriteString(p.Text)
	}
	if text.String() != res.Text || !strings.HasPrefix(g.Text, g.Prompt+res.Text) {
		t.Errorf("streamed %q, result %q", text.String(), res.Text)
	}
}

func TestMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing.bin")
	m, err := Load(path, nil)
	if m != nil || err == nil {
		t.Fatal("Load of a missing file succeeded")
	}
	var e *Error
	if !errors.As(err, &e) || e.Status != ErrNotFound || !errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %#v, want an *Error with ErrNotFound", err)
	}
	if int32(e.Status) != -2 || !strings.Contains(e.Message, "missing.bin") {
		t.Errorf("Status %d, Message %q", e.Status, e.Message)
	}
}

func TestTwoSessionsAgree(t *testing.T) {
	g := readGolden(t)
	m := loadStories(t)
	a, b := newSession(t, m), newSession(t, m)
	ra, err := a.Generate(g.Prompt, Greedy(), MaxTokens(40))
	if err != nil {
		t.Fatal(err)
	}
	rb, err := b.Generate(g.Prompt, Greedy(), MaxTokens(40))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ra, rb) || !reflect.DeepEqual(ra.Tokens, g.GeneratedIDs[:40]) {
		t.Errorf("sessions differ:\n%v\n%v", ra.Tokens, rb.Tokens)
	}
}

func TestResetAndSeed(t *testing.T) {
	g := readGolden(t)
	s := newSession(t, loadStories(t))
	opts := []Option{Temperature(1), TopP(0.9), Seed(42), MaxTokens(30)}
	first, err := s.Generate(g.Prompt, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Reset(); err != nil || s.Position() != 0 {
		t.Fatalf("Reset: %v, position %d", err, s.Position())
	}
	second, err := s.Generate(g.Prompt, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(first, second) {
		t.Errorf("same seed after Reset gave\n%v\n%v", first.Tokens, second.Tokens)
	}
}

func TestBadOptions(t *testing.T) {
	s := newSession(t, loadStories(t))
	if _, err := s.Generate("x", TopP(2)); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("TopP(2): err = %v", err)
	}
	if _, err := s.Generate("x", MaxTokens(-1)); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("MaxTokens(-1): err = %v", err)
	}
	if _, err := s.model.Detokenize([]int32{1, 9999}); !errors.Is(err, ErrTokenOutOfRange) {
		t.Errorf("Detokenize of id 9999: err = %v", err)
	}
}

func TestCloseTwiceAndUseAfterClose(t *testing.T) {
	g := readGolden(t)
	m := loadStories(t)
	s := newSession(t, m)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	m.Close()
	// the open session keeps the native model alive
	res, err := s.Generate(g.Prompt, Greedy(), MaxTokens(5))
	if err != nil || !reflect.DeepEqual(res.Tokens, g.GeneratedIDs[:5]) {
		t.Fatalf("session after Model.Close: %v, %v", res.Tokens, err)
	}
	if _, err := m.Tokenize("x", 0); err != ErrClosed {
		t.Errorf("Tokenize after Close: %v", err)
	}
	if _, err := m.NewSession(nil); err != ErrClosed {
		t.Errorf("NewSession after Close: %v", err)
	}
	s.Close()
	s.Close()
	if _, err := s.Generate("x"); err != ErrClosed {
		t.Errorf("Generate after Close: %v", err)
	}
	if err := s.Reset(); err != ErrClosed {
		t.Errorf("Reset after Close: %v", err)
	}
	s.Cancel()
	if m.IsEndOfGeneration(1) || s.Position() != 0 {
		t.Error("closed objects still answer")
	}
	if m.handle != 0 || s.handle != 0 {
		t.Error("native objects not freed")
	}
}

func TestWeightTypeNames(t *testing.T) {
	names := []string{"auto", "f32", "bf16", "f16", "q8_0", "q4_0", "q4_1", "q5_0", "q5_1", "q4_k", "q5_k", "q6_k"}
	types := []WeightType{WeightsAuto, WeightsF32, WeightsBF16, WeightsF16, WeightsQ8_0, WeightsQ4_0,
		WeightsQ4_1, WeightsQ5_0, WeightsQ5_1, WeightsQ4_K, WeightsQ5_K, WeightsQ6_K}
	for i, name := range names {
		if types[i] != WeightType(i) || types[i].String() != name {
			t.Errorf("weight type %d: %d %q, want %q", i, types[i], types[i].String(), name)
		}
		if w, err := ParseWeightType(strings.ToUpper(name)); err != nil || w != types[i] {
			t.Errorf("ParseWeightType(%q) = %v, %v", name, w, err)
		}
	}
	if s := WeightType(12).String(); s != "WeightType(12)" {
		t.Errorf("WeightType(12).String() = %q", s)
	}
	for _, bad := range []string{"q4_k_m", "", "f32\x00"} {
		if _, err := ParseWeightType(bad); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("ParseWeightType(%q): err = %v", bad, err)
		}
	}
}

func TestLoadConvertsToBlockTypes(t *testing.T) {
	dir := filepath.Join(sharedDir(), "models")
	load := func(w WeightType) WeightType {
		m, err := Load(filepath.Join(dir, "stories260K.bin"),
			&ModelOptions{TokenizerPath: filepath.Join(dir, "tok512.bin"), WeightType: w})
		if err != nil {
			t.Fatalf("load as %v: %v", w, err)
		}
		defer m.Close()
		return m.Info().WeightType
	}
	// stories260K's rows hold 64 values: 32-value blocks fit, the 256-value
	// k-quant blocks do not and the weights stay fp32.
	if got := load(WeightsQ4_0); got != WeightsQ4_0 {
		t.Errorf("load as q4_0: weights are %v", got)
	}
	if got := load(WeightsQ4_K); got != WeightsF32 {
		t.Errorf("load as q4_k: weights are %v", got)
	}
}

func TestMetadata(t *testing.T) {
	m := loadStories(t)
	meta, err := m.Metadata()
	if err != nil {
		t.Fatal(err)
	}
	if meta["general.architecture"] != "llama" {
		t.Errorf("Metadata() = %v", meta)
	}
	for key, value := range meta {
		if v, err := m.MetaValue(key); err != nil || v != value {
			t.Errorf("MetaValue(%q) = %q, %v; Metadata has %q", key, v, err, value)
		}
	}
	for _, absent := range []string{"no.such.key", "", "general.architecture\x00x"} {
		v, err := m.MetaValue(absent)
		var e *Error
		if v != "" || !errors.Is(err, ErrNotFound) || !errors.As(err, &e) || e.Message == "" {
			t.Errorf("MetaValue(%q) = %q, %v", absent, v, err)
		}
	}
	m.Close()
	if _, err := m.Metadata(); err != ErrClosed {
		t.Errorf("Metadata after Close: %v", err)
	}
	if _, err := m.MetaValue("general.architecture"); err != ErrClosed {
		t.Errorf("MetaValue after Close: %v", err)
	}
}
