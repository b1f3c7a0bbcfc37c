// Package batch is the batch job: 22s, in a closure run as a goroutine.
package batch

import (
	"context"
	"sync"
	"time"

	"example.com/incident/llm"
)

// Run completes every item in parallel.
func Run(c *llm.Client, items []string) {
	var wg sync.WaitGroup
	for _, it := range items {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 22*time.Second) // want `retry in llm.\(\*Client\).Complete can never start on this path: deadline 22s \(set here\) < 72s needed` `deadline 22s is below the 40s p99 of llm.\(\*Client\).Complete`
			defer cancel()
			c.Complete(ctx, it)
		}()
	}
	wg.Wait()
}
