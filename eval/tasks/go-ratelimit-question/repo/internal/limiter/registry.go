package limiter

import (
	"sync"
	"time"
)

// Registry hands out one Bucket per client key.
type Registry struct {
	mu      sync.Mutex
	rate    float64
	burst   int
	buckets map[string]*Bucket
	Now     func() time.Time
}

// NewRegistry creates a registry whose buckets share rate and burst.
func NewRegistry(rate float64, burst int) *Registry {
	return &Registry{rate: rate, burst: burst, buckets: make(map[string]*Bucket), Now: time.Now}
}

// Take takes a token from the bucket of key, creating the bucket if needed.
func (r *Registry) Take(key string) (bool, time.Duration) {
	now := r.Now()
	r.mu.Lock()
	b, ok := r.buckets[key]
	if !ok {
		b = NewBucket(r.rate, r.burst, now)
		r.buckets[key] = b
	}
	r.mu.Unlock()
	return b.Take(now)
}

// Len is the number of clients seen so far.
func (r *Registry) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.buckets)
}
