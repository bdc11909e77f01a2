// Command story prints a short story from the stories260K model.
//
//	go run ./examples/story [-model stories260K.bin] [-tokenizer tok512.bin] [-prompt text] [-n 200]
//
// The model paths default to $LLM_SHARED_DIR/models (or ../shared/models
// next to the repository).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"libllm.dev/llm"
)

func main() {
	shared := os.Getenv("LLM_SHARED_DIR")
	if shared == "" {
		shared = filepath.Join("..", "..", "..", "shared")
	}
	modelPath := flag.String("model", filepath.Join(shared, "models", "stories260K.bin"), "llama2.c checkpoint")
	tokenizer := flag.String("tokenizer", filepath.Join(shared, "models", "tok512.bin"), "its tokenizer")
	prompt := flag.String("prompt", "Once upon a time", "the story's beginning")
	n := flag.Int("n", 200, "tokens to generate at most")
	temperature := flag.Float64("temperature", 0, "0 = greedy")
	seed := flag.Uint64("seed", 0, "sampling seed")
	flag.Parse()

	model, err := llm.Load(*modelPath, &llm.ModelOptions{TokenizerPath: *tokenizer})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer model.Close()
	session, err := model.NewSession(nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer session.Close()

	fmt.Print(*prompt)
	_, err = session.Stream(*prompt, func(p llm.Piece) bool {
		fmt.Print(p.Text)
		return true
	}, llm.Temperature(float32(*temperature)), llm.Seed(*seed), llm.MaxTokens(*n))
	fmt.Println()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
