// Package sched waits between tries on a ticker it makes for each wait.
package sched

import (
	"context"
	"errors"
	"time"
)

// Pause waits the n-th pause of a doubling schedule, or until ctx ends.
func Pause(ctx context.Context, n int) error {
	if n > 5 {
		return errors.New("too many tries")
	}
	t := time.NewTicker(time.Duration(1<<n) * 100 * time.Millisecond)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
	}
	return nil
}
