package llm

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// qwen2-tiny has random weights and the real Qwen vocabulary: at
// temperature 1 only the grammar keeps its output in shape.

const personSchema = `{"type":"object","properties":{"name":{"type":"string","maxLength":8},` +
	`"age":{"type":"integer"}},"required":["name","age"],"additionalProperties":false}`

const structuredPrompt = "Answer in JSON:"

func generateOnce(t *testing.T, m *Model, opts ...Option) (Result, error) {
	t.Helper()
	s, err := m.NewSession(&SessionOptions{ContextSize: 128})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	free := []Option{Temperature(1), TopP(1), MaxTokens(64)}
	return s.Generate(structuredPrompt, append(free, opts...)...)
}

func TestJSONSchema(t *testing.T) {
	m := loadQwen(t)
	for seed := uint64(1); seed <= 4; seed++ {
		res, err := generateOnce(t, m, Seed(seed), JSONSchema(personSchema))
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if res.Stop != StopEOS {
			t.Fatalf("seed %d: stopped by %v: %q", seed, res.Stop, res.Text)
		}
		var person map[string]any
		if err := json.Unmarshal([]byte(res.Text), &person); err != nil {
			t.Fatalf("seed %d: %q: %v", seed, res.Text, err)
		}
		name, ok := person["name"].(string)
		if !ok || utf8.RuneCountInString(name) > 8 {
			t.Fatalf("seed %d: name in %q", seed, res.Text)
		}
		age, ok := person["age"].(float64)
		if !ok || age != float64(int64(age)) || len(person) != 2 {
			t.Fatalf("seed %d: age or extra keys in %q", seed, res.Text)
		}
	}
}

func TestGrammar(t *testing.T) {
	m := loadQwen(t)
	for seed := uint64(1); seed <= 3; seed++ {
		res, err := generateOnce(t, m, Seed(seed), Grammar(`root ::= ("yes" | "no")`))
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if res.Stop != StopEOS || (res.Text != "yes" && res.Text != "no") {
			t.Fatalf("seed %d: %q (%v)", seed, res.Text, res.Stop)
		}
	}
	res, err := generateOnce(t, m, Grammar("answer ::= \"maybe\"\nroot ::= \"never\""), GrammarRoot("answer"))
	if err != nil || res.Text != "maybe" {
		t.Fatalf("GrammarRoot: %q %v", res.Text, err)
	}
}

func TestBadGrammar(t *testing.T) {
	m := loadQwen(t)
	s, err := m.NewSession(&SessionOptions{ContextSize: 128})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	grammarErr := func(what string, err error, want string) {
		t.Helper()
		var e *Error
		if !errors.Is(err, ErrGrammar) || !errors.As(err, &e) || e.Status != ErrGrammar ||
			!strings.Contains(e.Message, want) {
			t.Fatalf("%s: want an *Error with ErrGrammar mentioning %q, got %v", what, want, err)
		}
	}
	_, err = s.Generate(structuredPrompt, Grammar("root ::= missing"))
	grammarErr("undefined rule", err, "missing")
	_, err = s.Generate(structuredPrompt, JSONSchema(`{"type":"object","properties":{"zip":{"type":"string","pattern":"^[0-9]+$"}}}`))
	grammarErr("pattern", err, "pattern")
	_, err = s.Generate(structuredPrompt, JSONSchema(`{"type": `))
	grammarErr("broken JSON", err, "")
	if s.Position() != 0 {
		t.Fatalf("a refused grammar fed the prompt: position %d", s.Position())
	}
	res, err := s.Generate(structuredPrompt, Seed(1), Grammar(`root ::= "ok"`))
	if err != nil || res.Text != "ok" {
		t.Fatalf("after the errors: %q %v", res.Text, err)
	}

	for _, opts := range [][]Option{
		{JSONSchema(personSchema), Grammar(`root ::= "a"`)},
		{GrammarRoot("root")},
		{Grammar("root ::= \"a\"\x00")},
		{JSONSchema("{}\x00")},
	} {
		_, err := s.Generate("", opts...)
		if !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("want ErrInvalidArgument, got %v", err)
		}
	}
}
