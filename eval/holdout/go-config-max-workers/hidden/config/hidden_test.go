package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHiddenMaxWorkersKey(t *testing.T) {
	cfg, err := Parse([]byte(`{"max_workers": 3}`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MaxWorkers != 3 {
		t.Fatalf("MaxWorkers = %d, want 3", cfg.MaxWorkers)
	}
}

func TestHiddenDocumentedDefaults(t *testing.T) {
	cfg, err := Parse([]byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg != (Config{MaxWorkers: 4, QueueSize: 100, OutputDir: "out"}) {
		t.Fatalf("defaults = %+v", cfg)
	}
	if Default().MaxWorkers != 4 {
		t.Fatalf("Default().MaxWorkers = %d", Default().MaxWorkers)
	}
}

func TestHiddenValidation(t *testing.T) {
	for _, bad := range []string{`{"max_workers": 0}`, `{"max_workers": -2}`, `{"queue_size": -1}`} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Fatalf("Parse(%s): expected an error", bad)
		} else if strings.Contains(bad, "max_workers") && !strings.Contains(err.Error(), "max_workers") {
			t.Fatalf("error %q should name max_workers", err)
		}
	}
}

func TestHiddenExampleFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "resizer.json")
	example := "{\n  \"max_workers\": 2,\n  \"queue_size\": 50,\n  \"output_dir\": \"/var/lib/resizer/out\"\n}\n"
	if err := os.WriteFile(path, []byte(example), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if cfg != (Config{MaxWorkers: 2, QueueSize: 50, OutputDir: "/var/lib/resizer/out"}) {
		t.Fatalf("cfg = %+v", cfg)
	}
}
