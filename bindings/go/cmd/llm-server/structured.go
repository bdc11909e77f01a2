package main

import (
	"encoding/json"
	"errors"

	"libllm.dev/llm"
)

// responseSchema is the JSON Schema a response_format asks for ("{}" for
// any JSON object).
func responseSchema(typ string, js *struct {
	Schema json.RawMessage `json:"schema"`
}) (string, error) {
	if !jsonSchemaSupported {
		return "", badRequest("response_format", "response_format not supported")
	}
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

// TODO(issue 37): the Go binding's JSONSchema option (engineer gbind) had
// not landed; once it has, set jsonSchemaSupported and return it here.
const jsonSchemaSupported = false

func jsonSchemaOption(schema string) (llm.Option, error) {
	return nil, errors.New("response_format not supported")
}
