// Package expired: a status write on the context that has just expired
// (expiredctx).
package expired

import (
	"context"
	"errors"
	"time"
)

type Store interface {
	SetStatus(ctx context.Context, id, status string) error
}

func work(ctx context.Context, id string) error { return ctx.Err() }

// Process marks the item failed on the expired context: the write fails
// and the item stays "in progress".
func Process(ctx context.Context, s Store, id string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := work(ctx, id); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			_ = s.SetStatus(ctx, id, "failed")
		}
		return err
	}
	return s.SetStatus(ctx, id, "done")
}
