// Package pool runs jobs on a fixed number of workers.
package pool

import "sync"

// Run executes every job with at most workers running at once and a queue
// of queueSize, and returns the results in job order.
func Run(jobs []func() string, workers, queueSize int) []string {
	results := make([]string, len(jobs))
	queue := make(chan int, queueSize)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range queue {
				results[i] = jobs[i]()
			}
		}()
	}
	for i := range jobs {
		queue <- i
	}
	close(queue)
	wg.Wait()
	return results
}
