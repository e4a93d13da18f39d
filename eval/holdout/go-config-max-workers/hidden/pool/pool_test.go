package pool

import (
	"fmt"
	"testing"
)

func TestRun(t *testing.T) {
	jobs := make([]func() string, 10)
	for i := range jobs {
		i := i
		jobs[i] = func() string { return fmt.Sprint(i * i) }
	}
	got := Run(jobs, 3, 2)
	if got[9] != "81" || len(got) != 10 {
		t.Fatalf("Run = %v", got)
	}
}
