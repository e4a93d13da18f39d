package server

import (
	"net/http"
	"net/http/httputil"
	"net/url"

	"example.com/gateway/internal/config"
	"example.com/gateway/internal/limiter"
)

// New builds the gateway handler for cfg.
func New(cfg config.Config) (http.Handler, error) {
	target, err := url.Parse(cfg.Upstream)
	if err != nil {
		return nil, err
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	reg := limiter.NewRegistry(cfg.RatePerSec, cfg.Burst)
	return WithRateLimit(proxy, reg, cfg.TrustForwardedFor), nil
}
