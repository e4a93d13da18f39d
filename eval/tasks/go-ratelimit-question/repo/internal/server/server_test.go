package server

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"example.com/gateway/internal/limiter"
)

func TestRateLimit(t *testing.T) {
	reg := limiter.NewRegistry(1, 1)
	t0 := time.Unix(100, 0)
	reg.Now = func() time.Time { return t0 }
	h := WithRateLimit(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}), reg, false)

	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Header.Set("X-API-Key", "abc")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("first = %d", rec.Code)
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "1" {
		t.Fatalf("second = %d %q", rec.Code, rec.Header().Get("Retry-After"))
	}
}
