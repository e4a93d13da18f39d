// Package server wires the rate limiter in front of the upstream proxy.
package server

import (
	"math"
	"net/http"
	"strconv"

	"example.com/gateway/internal/limiter"
)

// WithRateLimit rejects requests of clients whose bucket is empty.
func WithRateLimit(next http.Handler, reg *limiter.Registry, trustForwarded bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ok, wait := reg.Take(clientKey(r, trustForwarded))
		if !ok {
			w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
			http.Error(w, "too many requests", http.StatusTooManyRequests)
			return
		}
		next.ServeHTTP(w, r)
	})
}
