// Package batch is the batch job: 22s, written as arithmetic, in a closure
// run as a goroutine.
package batch

import (
	"context"
	"sync"
	"time"

	"example.com/t/llm"
)

// Run completes every item in parallel.
func Run(c *llm.Client, items []string) {
	var wg sync.WaitGroup
	for _, it := range items {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second+2*time.Second) // want `retry in llm.\(\*Client\).Complete can never start on this path: deadline 22s \(set here\) < 72s needed \(waits 7s, 11s; reserve 65s\); path: batch.Run\$1 -> llm.\(\*Client\).Complete$` `^deadline 22s is below the 40s p99 of llm.\(\*Client\).Complete: slow answers become errors and the backup is never asked; path: batch.Run\$1 -> llm.\(\*Client\).Complete$`
			defer cancel()
			c.Complete(ctx, it)
		}()
	}
	wg.Wait()
}
