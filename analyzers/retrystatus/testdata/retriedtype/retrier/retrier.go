// Package retrier makes retrying functions: New(classify) returns a func
// that runs an operation until it succeeds, the classifier says no, or
// the attempts run out.
package retrier

import (
	"context"
	"math/rand/v2"
	"time"
)

// Do runs op with retries.
type Do func(ctx context.Context, op func(context.Context) error) error

// Policy is how often and how long to retry.
type Policy struct {
	Attempts int
	Base     time.Duration
}

// New returns the retrying function of p; classify says whether an error
// is worth another attempt and how long the server asked to wait.
func (p Policy) New(classify func(error) (bool, time.Duration)) Do {
	if p.Attempts <= 1 {
		return func(ctx context.Context, op func(context.Context) error) error { return op(ctx) }
	}
	return func(ctx context.Context, op func(context.Context) error) error {
		var err error
		for i := 0; i < p.Attempts; i++ {
			if err = op(ctx); err == nil {
				return nil
			}
			again, hint := classify(err)
			if !again {
				return err
			}
			wait := max(hint, time.Duration(rand.Int64N(int64(p.Base<<i)+1)))
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(wait):
			}
		}
		return err
	}
}
