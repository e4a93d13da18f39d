package limiter

import (
	"testing"
	"time"
)

func TestBucket(t *testing.T) {
	t0 := time.Unix(0, 0)
	b := NewBucket(2, 2, t0)
	for i := 0; i < 2; i++ {
		if ok, _ := b.Take(t0); !ok {
			t.Fatalf("take %d failed", i)
		}
	}
	ok, wait := b.Take(t0)
	if ok || wait != 500*time.Millisecond {
		t.Fatalf("Take = %v, %v", ok, wait)
	}
	if ok, _ := b.Take(t0.Add(500 * time.Millisecond)); !ok {
		t.Fatal("token not regained")
	}
}
