package llm

import (
	"errors"
	"path/filepath"
	"reflect"
	"testing"
)

func TestSaveLoadStateContinuesExactly(t *testing.T) {
	g := readGolden(t)
	m := loadStories(t)
	a := newSession(t, m)
	if _, err := a.Generate(g.Prompt, Greedy(), MaxTokens(10)); err != nil {
		t.Fatal(err)
	}
	state, err := a.SaveState()
	if err != nil {
		t.Fatal(err)
	}
	b := newSession(t, m)
	if err := b.LoadState(state); err != nil {
		t.Fatal(err)
	}
	if b.Position() != a.Position() {
		t.Fatalf("Position %d, want %d", b.Position(), a.Position())
	}
	ra, err := a.Generate("", Greedy(), MaxTokens(20))
	if err != nil {
		t.Fatal(err)
	}
	rb, err := b.Generate("", Greedy(), MaxTokens(20))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ra, rb) || !reflect.DeepEqual(ra.Tokens, g.GeneratedIDs[10:30]) {
		t.Errorf("after LoadState:\n%v\nwant %v", rb.Tokens, ra.Tokens)
	}

	path := filepath.Join(t.TempDir(), "session.state")
	if err := a.SaveStateFile(path); err != nil {
		t.Fatal(err)
	}
	c := newSession(t, m)
	if err := c.LoadStateFile(path); err != nil {
		t.Fatal(err)
	}
	if c.Position() != a.Position() {
		t.Errorf("from the file: Position %d, want %d", c.Position(), a.Position())
	}
	if err := c.LoadStateFile(path + ".missing"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing file: err = %v", err)
	}
	if err := c.LoadState(state[:len(state)/2]); !errors.Is(err, ErrTruncated) {
		t.Errorf("half a state: err = %v", err)
	}
	damaged := append([]byte(nil), state...)
	damaged[len(damaged)/2] ^= 1
	if err := c.LoadState(damaged); !errors.Is(err, ErrFormat) {
		t.Errorf("damaged state: err = %v", err)
	}
	if c.Position() != a.Position() {
		t.Errorf("a failed load changed the session")
	}
}

func TestStateOfAnotherModelIsRefused(t *testing.T) {
	a := newSession(t, loadStories(t))
	if _, err := a.Generate("Once", Greedy(), MaxTokens(2)); err != nil {
		t.Fatal(err)
	}
	state, err := a.SaveState()
	if err != nil {
		t.Fatal(err)
	}
	other, err := Load(filepath.Join(sharedDir(), "models", "stories260K.bin"),
		&ModelOptions{TokenizerPath: filepath.Join(sharedDir(), "models", "tok512.bin"), WeightType: WeightsQ8_0})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	b := newSession(t, other)
	if err := b.LoadState(state); !errors.Is(err, ErrStateMismatch) {
		t.Errorf("err = %v, want ErrStateMismatch", err)
	}
}

func TestCopyPrefixFrom(t *testing.T) {
	g := readGolden(t)
	m := loadStories(t)
	system := newSession(t, m)
	if _, err := system.Generate(g.Prompt, Greedy(), MaxTokens(5)); err != nil {
		t.Fatal(err)
	}
	a, b := newSession(t, m), newSession(t, m)
	for _, s := range []*Session{a, b} {
		if err := s.CopyPrefixFrom(system, system.Position()); err != nil {
			t.Fatal(err)
		}
	}
	ra, err := a.Generate("", Greedy(), MaxTokens(10))
	if err != nil {
		t.Fatal(err)
	}
	rb, err := b.Generate("", Greedy(), MaxTokens(10))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ra.Tokens, g.GeneratedIDs[5:15]) || !reflect.DeepEqual(ra, rb) {
		t.Errorf("after CopyPrefixFrom: %v, %v\nwant %v", ra.Tokens, rb.Tokens, g.GeneratedIDs[5:15])
	}
	if err := a.CopyPrefixFrom(system, system.Position()+1); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("too long a prefix: err = %v", err)
	}
	if err := a.CopyPrefixFrom(a, 1); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("itself: err = %v", err)
	}
}
