// Package clean has nothing to report: a polling loop, a handler writing a
// 5xx, and a cancellable, jittered, deadline-aware retry.
package clean

import (
	"context"
	"math/rand/v2"
	"net/http"
	"time"
)

// Poll waits for ready; it is polling, not retrying.
func Poll(ctx context.Context, ready func() bool) error {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for !ready() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}

// Handler writes a 503; it does not retry anything.
func Handler(w http.ResponseWriter, r *http.Request) {
	http.Error(w, "unavailable", http.StatusServiceUnavailable)
}

// Retry waits with jitter and stops when ctx is done.
func Retry(ctx context.Context, op func(context.Context) error) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if err = op(ctx); err == nil {
			return nil
		}
		wait := time.Duration(100+rand.IntN(100)) * time.Millisecond << attempt
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
	return err
}
