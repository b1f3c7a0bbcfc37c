package llm

import (
	"context"
	"testing"
	"time"
)

// A test whose deadline is below what the retry needs cannot observe it.
func TestCompleteShortDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c := &Client{URL: "http://127.0.0.1:0"}
	if _, err := c.Complete(ctx, "hi"); err == nil {
		t.Fatal("want an error")
	}
}
