// Package app retries api calls; it names no status code itself.
package app

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"example.com/t/xerr/api"
)

func wait(ctx context.Context, i int) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(rand.N(time.Second << i)):
		return nil
	}
}

// Fetch retries what api.(*Error).Temporary calls temporary.
func Fetch(ctx context.Context, c *api.Client, url string) error {
	var err error
	for i := 0; i < 4; i++ {
		err = c.Get(ctx, url)
		if err == nil {
			return nil
		}
		var ae *api.Error
		if !errors.As(err, &ae) || !ae.Temporary() { // want `retry decision lists 5xx codes 502, 503 \(in api.\(\*Error\).Temporary at api/api.go:\d+\): 500, 504 and 529 \(overloaded\) are not retried`
			return err
		}
		if err := wait(ctx, i); err != nil {
			return err
		}
	}
	return err
}

// Quiet: Retryable covers every 5xx and 429.
func FetchAll(ctx context.Context, c *api.Client, url string) error {
	var err error
	for i := 0; i < 4; i++ {
		err = c.Get(ctx, url)
		if err == nil {
			return nil
		}
		var ae *api.Error
		if !errors.As(err, &ae) || !ae.Retryable() {
			return err
		}
		if err := wait(ctx, i); err != nil {
			return err
		}
	}
	return err
}
