package main

import (
	"encoding/base64"
	"encoding/binary"
	"math"
	"net/http"
)

// maxEmbeddingInputs bounds the texts of one request.
const maxEmbeddingInputs = 256

// handleEmbeddings is POST /v1/embeddings: one vector per input text, with
// the model's default pooling, normalized.
func (s *server) handleEmbeddings(w http.ResponseWriter, r *http.Request) error {
	var req embeddingRequest
	if err := s.readJSON(w, r, &req); err != nil {
		return err
	}
	if err := s.checkModel(req.Model); err != nil {
		return err
	}
	inputs, err := stringOrList(req.Input, "input")
	if err != nil {
		return err
	}
	if len(inputs) == 0 {
		return badRequest("input", "input is required: a string or a list of strings")
	}
	if len(inputs) > maxEmbeddingInputs {
		return badRequest("input", "at most %d inputs per request", maxEmbeddingInputs)
	}
	for i, text := range inputs {
		if text == "" {
			return badRequest("input", "input[%d] is empty", i)
		}
	}
	base64Format := false
	switch req.EncodingFormat {
	case "", "float":
	case "base64":
		base64Format = true
	default:
		return badRequest("encoding_format", "encoding_format must be \"float\" or \"base64\"")
	}

	token, err := s.embeds.acquire(r.Context())
	if err != nil {
		return err
	}
	s.running.Add(1)
	defer s.running.Done()
	defer s.embeds.release(token)
	list := embeddingList{Object: "list", Model: s.cfg.modelName, Data: []embeddingData{}}
	for i, text := range inputs {
		if r.Context().Err() != nil {
			return r.Context().Err()
		}
		v, n, err := s.be.Embed(text)
		if err != nil {
			return err
		}
		if req.Dimensions != nil && *req.Dimensions != len(v) {
			return badRequest("dimensions", "this model's embeddings have %d dimensions", len(v))
		}
		list.Usage.PromptTokens += n
		var value any = v
		if base64Format {
			value = float32Base64(v)
		}
		list.Data = append(list.Data, embeddingData{Object: "embedding", Index: i, Embedding: value})
	}
	list.Usage.TotalTokens = list.Usage.PromptTokens
	writeJSON(w, 200, list)
	return nil
}

// float32Base64 is OpenAI's base64 encoding: little-endian float32s.
func float32Base64(v []float32) string {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return base64.StdEncoding.EncodeToString(b)
}
