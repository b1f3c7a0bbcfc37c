// Package overflow: an exponential wait whose exponent has no bound wraps
// a time.Duration from some attempt on.
package overflow

import (
	"context"
	"math"
	"time"
)

// BackoffFunc computes the wait before an attempt.
type BackoffFunc func(ctx context.Context, attempt uint) time.Duration

func exponentBase2(a uint) uint {
	return (1 << a) >> 1
}

// Exponential is a library's backoff: the caller picks the attempts.
func Exponential(scalar time.Duration) BackoffFunc {
	return func(ctx context.Context, attempt uint) time.Duration {
		return scalar * time.Duration(exponentBase2(attempt)) // want `wait overflows: scalar × 2\^attempt has no bound on the attempt: from attempt 38 for a 100ms scale \(35 for 1s\)`
	}
}

// Wait doubles a constant base; the cap after it does not stop the wrap.
func Wait(attempt int) time.Duration {
	d := 500 * time.Millisecond << attempt // want `wait overflows: 500ms × 2\^attempt has no bound on the attempt: from attempt 35 the product`
	if d > time.Minute {
		d = time.Minute
	}
	return d
}

// Pow computes the factor with math.Pow.
func Pow(attempt int) time.Duration {
	return time.Second * time.Duration(math.Pow(2, float64(attempt))) // want `wait overflows: 1s × 2\^attempt has no bound on the attempt: from attempt 34 the product`
}

// Capped clamps the exponent first: quiet.
func Capped(attempt int) time.Duration {
	if attempt > 30 {
		attempt = 30
	}
	return time.Second << attempt
}

// Clamped takes the least of the exponent and a bound: quiet.
func Clamped(attempt int) time.Duration {
	return time.Second << min(attempt, 20)
}

// Checked tests the result for the wrap: quiet.
func Checked(attempt int) time.Duration {
	d := time.Second << attempt
	if d <= 0 || d > time.Minute {
		return time.Minute
	}
	return d
}

// internal is the package's own, called with its own bounded attempts:
// quiet.
func internal(attempt int) time.Duration {
	return time.Second << attempt
}

// Retry makes three attempts on the caller's ctx.
func Retry(ctx context.Context, op func(context.Context) error) error {
	var err error
	for i := 0; i < 3; i++ {
		if err = op(ctx); err == nil {
			return nil
		}
		time.Sleep(internal(i)) // want `wait ignores cancellation: .*also attempt-only: retry loop makes 3 attempts`
	}
	return err
}

// Mask is a shift of another kind: not a duration, quiet.
func Mask(bit uint) uint64 {
	return 1 << bit
}
