// Command chat holds a two-turn conversation with a model's own chat
// template: each turn renders the whole history and continues from it.
//
//	go run ./examples/chat [-model DIR_OR_GGUF] [-n 24]
//
// The model defaults to qwen2-tiny in $LLM_SHARED_DIR/models (or
// ../shared/models next to the repository): random weights, so the answers
// are noise, but the prompts are Qwen's.
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
	modelPath := flag.String("model", filepath.Join(shared, "models", "qwen2-tiny"), "a model with a chat template")
	n := flag.Int("n", 24, "tokens per answer at most")
	flag.Parse()

	model, err := llm.Load(*modelPath, nil)
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

	history := []llm.ChatMessage{{Role: "system", Content: "You are brief."}}
	for _, question := range []string{"Name a colour.", "And another one?"} {
		history = append(history, llm.ChatMessage{Role: "user", Content: question})
		prompt, err := model.ApplyChatTemplate(history, nil)
		if err == nil {
			err = session.Reset() // the prompt holds the whole history
		}
		var res llm.Result
		if err == nil {
			res, err = session.Generate(prompt, llm.ParseSpecialTokens(), llm.Greedy(), llm.MaxTokens(*n))
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		answer, err := model.ParseChat(res.Text)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("> %s\n%s\n", question, answer.Content)
		history = append(history, llm.ChatMessage{Role: "assistant", Content: answer.Content})
	}
}
