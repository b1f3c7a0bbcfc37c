// Package h holds retry helpers: functions that retry an operation they
// are given.
package h

import (
	"context"
	"time"
)

// Retry calls fn up to 4 times, 1s apart.
func Retry(ctx context.Context, fn func() error) error { // want Retry:`retries param 1`
	var err error
	for i := 0; i < 4; i++ {
		if err = fn(); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return err
}

// Once calls fn once: not a helper.
func Once(fn func() error) error { return fn() }
