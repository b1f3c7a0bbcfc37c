// Package retryx is a project's own retry helper: it runs fn until it
// succeeds, up to MaxRetries more times, doubling the wait.
package retryx

import (
	"context"
	"time"
)

type Config struct {
	MaxRetries int
	Wait       time.Duration
}

func Do[T any](ctx context.Context, cfg Config, fn func() (T, error)) (T, error) {
	var res T
	var err error
	wait := cfg.Wait
	for attempt := 0; attempt <= cfg.MaxRetries; attempt++ {
		if res, err = fn(); err == nil {
			return res, nil
		}
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(wait):
		}
		wait *= 2
	}
	return res, err
}
