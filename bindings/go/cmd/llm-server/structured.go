package main

import (
	"encoding/json"

	"libllm.dev/llm"
)

// responseSchema is the JSON Schema a response_format asks for: any JSON
// object for json_object. A schema libllm refuses fails the generation
// with llm.ErrGrammar (400) before anything is streamed.
func responseSchema(typ string, js *struct {
	Schema json.RawMessage `json:"schema"`
}) (string, error) {
	switch typ {
	case "json_object":
		return `{"type":"object"}`, nil
	case "json_schema":
		if js == nil || len(js.Schema) == 0 || string(js.Schema) == "null" {
			return "", badRequest("response_format", "response_format.json_schema.schema is required")
		}
		return string(js.Schema), nil
	}
	return "", badRequest("response_format", "unknown response_format type %q", typ)
}

func jsonSchemaOption(schema string) (llm.Option, error) { return llm.JSONSchema(schema), nil }
