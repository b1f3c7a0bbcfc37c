package llm

import (
	"context"
	"testing"
	"time"
)

// A test whose deadline is below what the retry needs cannot observe it.
func TestCompleteShortDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second) // want `deadline 5s \(set here\) < 72s needed` `deadline 5s is below the 40s p99`
	defer cancel()
	c := &Client{URL: "http://127.0.0.1:0"}
	if _, err := c.Complete(ctx, "hi"); err == nil {
		t.Fatal("want an error")
	}
}
