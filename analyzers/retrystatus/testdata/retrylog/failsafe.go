package retrylog

import (
	"context"
	"log/slog"
	"time"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
)

// Fetch retries through a failsafe-go policy with no listener.
func Fetch(ctx context.Context, url string) error {
	rp := retrypolicy.NewBuilder[any]().WithMaxRetries(4).WithBackoff(time.Second, 10*time.Second).WithJitterFactor(0.5).Build()
	return failsafe.With(rp).WithContext(ctx).Run(func() error { return get(ctx, url) }) // want `retry decision not recorded: failsafe Run \(5 attempts.*\) goes round again without a log line, metric or trace event, so nobody sees that calls now take several attempts; add OnRetryScheduled`
}

// Watched: the policy's OnRetryScheduled logs each decision.
func Watched(ctx context.Context, url string) error {
	rp := retrypolicy.NewBuilder[any]().
		WithMaxRetries(4).
		WithBackoff(time.Second, 10*time.Second).
		WithJitterFactor(0.5).
		OnRetryScheduled(func(e failsafe.ExecutionScheduledEvent[any]) {
			slog.Warn("retrying", "attempt", e.Attempts(), "err", e.LastError(), "wait", e.Delay)
		}).
		Build()
	return failsafe.With(rp).WithContext(ctx).Run(func() error { return get(ctx, url) })
}
