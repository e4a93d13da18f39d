// Package limiter implements per-client token buckets.
package limiter

import (
	"math"
	"sync"
	"time"
)

// Bucket is a token bucket: it holds up to Burst tokens and regains Rate
// tokens per second.
type Bucket struct {
	mu     sync.Mutex
	rate   float64
	burst  float64
	tokens float64
	last   time.Time
}

// NewBucket returns a full bucket.
func NewBucket(rate float64, burst int, now time.Time) *Bucket {
	return &Bucket{rate: rate, burst: float64(burst), tokens: float64(burst), last: now}
}

// refill adds the tokens earned since the last update, capped at burst.
func (b *Bucket) refill(now time.Time) {
	elapsed := now.Sub(b.last).Seconds()
	if elapsed <= 0 {
		return
	}
	b.tokens = math.Min(b.burst, b.tokens+elapsed*b.rate)
	b.last = now
}

// Take tries to take one token at time now. It reports whether it succeeded
// and, if not, how long until a token will be available.
func (b *Bucket) Take(now time.Time) (bool, time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.refill(now)
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	wait := (1 - b.tokens) / b.rate
	return false, time.Duration(wait * float64(time.Second))
}
