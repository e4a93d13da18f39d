// Package config reads the gateway configuration file.
package config

import (
	"encoding/json"
	"fmt"
	"os"
)

// Config is the gateway configuration.
type Config struct {
	Listen            string  `json:"listen"`
	Upstream          string  `json:"upstream"`
	RatePerSec        float64 `json:"rate_per_sec"`
	Burst             int     `json:"burst"`
	TrustForwardedFor bool    `json:"trust_forwarded_for"`
}

// Load reads and validates the JSON config file at path.
func Load(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, err
	}
	cfg := Config{Listen: "127.0.0.1:8081", RatePerSec: 5, Burst: 10}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	if cfg.Upstream == "" {
		return Config{}, fmt.Errorf("%s: upstream is required", path)
	}
	if cfg.RatePerSec <= 0 || cfg.Burst < 1 {
		return Config{}, fmt.Errorf("%s: rate_per_sec and burst must be positive", path)
	}
	return cfg, nil
}
