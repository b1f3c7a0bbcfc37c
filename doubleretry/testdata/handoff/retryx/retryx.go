// Package retryx is a project's wrapper of retry-go whose count comes from
// configuration (as goreleaser's internal/retryx): it hands the function it
// is given to retry.Do rather than calling it.
package retryx

import (
	"context"
	"time"

	"github.com/avast/retry-go/v4"
)

// Config is the retry configuration a user sets.
type Config struct {
	Attempts uint
	Delay    time.Duration
}

// Do retries fn as c says.
func Do(ctx context.Context, c Config, fn func() error) error {
	return retry.Do(fn, retry.Context(ctx), retry.Attempts(max(c.Attempts, 1)), retry.Delay(c.Delay))
}

// Go starts fn in the background: it hands fn to no retry.
func Go(fn func() error) {
	go func() { _ = fn() }()
}
