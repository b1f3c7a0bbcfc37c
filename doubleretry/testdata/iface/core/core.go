// Package core declares the model interface and retries it; the
// implementations live in subpackages that import core, so core cannot
// see them: they see core's retry.
package core

import (
	"context"
	"time"
)

type Model interface {
	Generate(ctx context.Context, prompt string) (string, error)
}

// Store is retried too; its implementation does not retry.
type Store interface {
	Put(ctx context.Context, key, val string) error
}

// Notifier is called in the loop, but its failure is only logged.
type Notifier interface {
	Notify(ctx context.Context, msg string) error
}

func wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// GenerateWithRetry makes 3 attempts of m.Generate.
func GenerateWithRetry(ctx context.Context, m Model, n Notifier, prompt string) (string, error) {
	var last error
	for attempt := 0; attempt < 3; attempt++ {
		if err := n.Notify(ctx, "attempt"); err != nil {
			println("notify failed:", err.Error()) // dropped: the loop goes on
		}
		out, err := m.Generate(ctx, prompt)
		if err == nil {
			return out, nil
		}
		last = err
		if err := wait(ctx, time.Second<<attempt); err != nil {
			return "", err
		}
	}
	return "", last
}

// PutWithRetry makes 4 attempts of s.Put.
func PutWithRetry(ctx context.Context, s Store, k, v string) error {
	var err error
	for attempt := 0; attempt < 4; attempt++ {
		if err = s.Put(ctx, k, v); err == nil {
			return nil
		}
		if werr := wait(ctx, 100*time.Millisecond<<attempt); werr != nil {
			return werr
		}
	}
	return err
}
