// Package config loads the resizer configuration.
package config

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
)

// Config is the resizer configuration.
type Config struct {
	MaxWorkers int    `json:"workers"`
	QueueSize  int    `json:"queue_size"`
	OutputDir  string `json:"output_dir"`
}

// Default returns the configuration used for keys missing from the file.
func Default() Config {
	return Config{MaxWorkers: runtime.NumCPU(), QueueSize: 100, OutputDir: "out"}
}

// Parse reads a JSON configuration; missing keys keep their defaults.
func Parse(data []byte) (Config, error) {
	cfg := Default()
	if err := json.Unmarshal(data, &cfg); err != nil {
		return Config{}, err
	}
	if cfg.MaxWorkers < 1 {
		return Config{}, fmt.Errorf("max_workers must be at least 1, got %d", cfg.MaxWorkers)
	}
	if cfg.QueueSize < 0 {
		return Config{}, fmt.Errorf("queue_size must not be negative, got %d", cfg.QueueSize)
	}
	return cfg, nil
}

// Load reads the configuration file at path.
func Load(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, err
	}
	cfg, err := Parse(data)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}
