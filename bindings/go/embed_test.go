package llm

import (
	"errors"
	"math"
	"testing"
)

func TestEmbed(t *testing.T) {
	m := loadStories(t)
	dim := m.Info().EmbeddingSize
	if p := m.DefaultPooling(); p != PoolingMean {
		t.Fatalf("DefaultPooling = %d, want PoolingMean", p)
	}
	v, err := m.Embed("Once upon a time", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(v) != dim {
		t.Fatalf("%d values, want %d", len(v), dim)
	}
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if math.Abs(sum-1) > 1e-4 {
		t.Fatalf("squared norm %v, want 1", sum)
	}
	again, err := m.Embed("Once upon a time", &EmbedOptions{Pooling: PoolingMean})
	if err != nil {
		t.Fatal(err)
	}
	for i := range v {
		if v[i] != again[i] {
			t.Fatalf("value %d differs between runs: %v, %v", i, v[i], again[i])
		}
	}

	// PoolingNone: a row per token; its last row is PoolingLast's vector.
	ids, _ := m.Tokenize("Once upon a time", AddSpecial)
	rows, err := m.Embed("Once upon a time", &EmbedOptions{Pooling: PoolingNone, NoNormalize: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(ids)*dim {
		t.Fatalf("%d values, want %d x %d", len(rows), len(ids), dim)
	}
	last, err := m.Embed("Once upon a time", &EmbedOptions{Pooling: PoolingLast, NoNormalize: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < dim; i++ {
		if last[i] != rows[(len(ids)-1)*dim+i] {
			t.Fatalf("last token's value %d: %v, row %v", i, last[i], rows[(len(ids)-1)*dim+i])
		}
	}

	_, err = m.Embed("x", &EmbedOptions{Pooling: Pooling(9)})
	if !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("bad pooling: %v", err)
	}
	m.Close()
	if _, err := m.Embed("x", nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("closed model: %v", err)
	}
}
