package config

import "testing"

func TestQueueAndOutput(t *testing.T) {
	cfg, err := Parse([]byte(`{"queue_size": 7, "output_dir": "/tmp/x"}`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.QueueSize != 7 || cfg.OutputDir != "/tmp/x" {
		t.Fatalf("cfg = %+v", cfg)
	}
}

func TestBadJSON(t *testing.T) {
	if _, err := Parse([]byte(`{`)); err == nil {
		t.Fatal("expected an error")
	}
}
