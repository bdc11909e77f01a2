module libllm.dev/llm

go 1.19
