package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestParseOptions(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "stories260K.bin")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LLM_API_KEY", "from-env")
	o, err := parseOptions([]string{"-m", file, "--port", "0", "--parallel", "8", "--grace", "1s"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.modelName != "stories260K" || o.port != 0 || o.parallel != 8 || o.queue != 64 || o.host != "127.0.0.1" ||
		o.maxBody != 1<<20 || o.apiKey != "from-env" || o.grace != time.Second {
		t.Fatalf("%+v", *o)
	}
	o, err = parseOptions([]string{"-m", dir, "--api-key", "k", "--model-name", "mine"}, io.Discard)
	if err != nil || o.apiKey != "k" || o.modelName != "mine" || defaultModelName(dir+"/") != filepath.Base(dir) {
		t.Fatalf("%v %+v", err, o)
	}
	for _, bad := range [][]string{
		{}, {"-m", file, "extra"}, {"-m", file, "--port", "70000"}, {"-m", file, "--parallel", "0"},
		{"-m", file, "--queue", "-1"}, {"-m", file, "--max-body", "10"}, {"-m", file, "--nope"},
	} {
		if _, err := parseOptions(bad, io.Discard); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
