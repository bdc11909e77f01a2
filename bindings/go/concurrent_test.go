package llm

import (
	"reflect"
	"sync"
	"testing"
)

// Sessions of one model generating from several goroutines at once are
// batched by the library (its model-level scheduler): no extra code here,
// and each session gets exactly what it gets alone.
func TestConcurrentSessionsMatchSequential(t *testing.T) {
	m := loadStories(t)
	prompts := []string{"Once upon a time", "The dog", "Lily and Tom went to the park", "One day"}
	lengths := []int{40, 25, 33, 18}
	generate := func(i int) (Result, error) {
		s, err := m.NewSession(&SessionOptions{ContextSize: 256, Threads: 1})
		if err != nil {
			return Result{}, err
		}
		defer s.Close()
		return s.Generate(prompts[i], Greedy(), StopAtEOS(false), MaxTokens(lengths[i]))
	}
	want := make([]Result, len(prompts))
	for i := range prompts {
		r, err := generate(i)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = r
	}
	for round := 0; round < 3; round++ {
		got := make([]Result, len(prompts))
		errs := make([]error, len(prompts))
		var wg sync.WaitGroup
		for i := range prompts {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				got[i], errs[i] = generate(i)
			}(i)
		}
		wg.Wait()
		for i := range prompts {
			if errs[i] != nil {
				t.Fatalf("round %d, session %d: %v", round, i, errs[i])
			}
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("round %d, session %d: concurrent\n%v\nsequential\n%v", round, i, got[i].Tokens, want[i].Tokens)
			}
		}
	}
}
