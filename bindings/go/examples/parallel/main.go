// Command parallel serves two conversations at once: two sessions of one
// model generate from two goroutines, and the engine gathers their steps
// into one batched pass over the weights.
//
//	go run ./examples/parallel [-n 60] [-check]
//
// -check runs each prompt again alone and fails unless the concurrent
// answers are the same (greedy decoding is deterministic, batched or not).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"libllm.dev/llm"
)

func main() {
	shared := os.Getenv("LLM_SHARED_DIR")
	if shared == "" {
		shared = filepath.Join("..", "..", "..", "shared")
	}
	models := filepath.Join(shared, "models")
	n := flag.Int("n", 60, "tokens per story at most")
	check := flag.Bool("check", false, "compare with each story generated alone")
	flag.Parse()

	model, err := llm.Load(filepath.Join(models, "stories260K.bin"),
		&llm.ModelOptions{TokenizerPath: filepath.Join(models, "tok512.bin")})
	exitIf(err)
	defer model.Close()

	prompts := []string{"Once upon a time", "The little dog"}
	tell := func(prompt string) string {
		session, err := model.NewSession(nil)
		exitIf(err)
		defer session.Close()
		res, err := session.Generate(prompt, llm.Greedy(), llm.MaxTokens(*n))
		exitIf(err)
		return prompt + res.Text
	}

	stories := make([]string, len(prompts))
	var wg sync.WaitGroup
	for i, prompt := range prompts {
		wg.Add(1)
		go func(i int, prompt string) { // one goroutine per conversation
			defer wg.Done()
			stories[i] = tell(prompt)
		}(i, prompt)
	}
	wg.Wait()

	for i, story := range stories {
		fmt.Printf("[%d] %s\n", i+1, story)
		if *check && tell(prompts[i]) != story {
			exitIf(fmt.Errorf("story %d differs from the one generated alone", i+1))
		}
	}
	if *check {
		fmt.Println("both stories are the same as generated alone")
	}
}

func exitIf(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
