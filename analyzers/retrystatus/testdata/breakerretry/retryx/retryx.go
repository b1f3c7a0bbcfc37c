// Package retryx is a project's own retry helpers.
package retryx

import (
	"context"
	"time"
)

// Eight runs op up to 8 times, a second apart.
func Eight(ctx context.Context, op func() error) error {
	var err error
	for i := 0; i < 8; i++ {
		if err = op(); err == nil {
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

// Twice runs op up to 2 times.
func Twice(ctx context.Context, op func() error) error {
	var err error
	for i := 0; i < 2; i++ {
		if err = op(); err == nil {
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
