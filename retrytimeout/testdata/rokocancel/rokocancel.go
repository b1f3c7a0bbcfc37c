// Package rokocancel holds github.com/buildkite/roko retries run with Do,
// which waits on context.Background(), where a context that can be done
// is in scope; beside DoWithContext and a Do with no context around.
package rokocancel

import (
	"context"
	"net/http"
	"time"

	"github.com/buildkite/roko"
)

func ping(ctx context.Context, hc *http.Client) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://api.example.com/ping", nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// Ping waits between attempts whatever ctx says. Reported.
func Ping(ctx context.Context, hc *http.Client) error {
	r := roko.NewRetrier(roko.WithMaxAttempts(10), roko.WithStrategy(roko.Constant(5*time.Second)), roko.WithJitter())
	return r.Do(func(r *roko.Retrier) error { // want `wait ignores cancellation: roko Do waits between attempts on a timer of its own \(Do runs on context.Background\(\)\), so after ctx is done it waits on and then runs the operation again .*; call DoWithContext\(ctx, \.\.\.\)`
		return ping(ctx, hc)
	})
}

// PingBound waits in a select on ctx.Done(). Quiet.
func PingBound(ctx context.Context, hc *http.Client) error {
	r := roko.NewRetrier(roko.WithMaxAttempts(10), roko.WithStrategy(roko.Constant(5*time.Second)), roko.WithJitter())
	return r.DoWithContext(ctx, func(r *roko.Retrier) error {
		return ping(ctx, hc)
	})
}

// Warm has no context to honour. Quiet.
func Warm(hc *http.Client) error {
	return roko.NewRetrier(roko.WithMaxAttempts(3), roko.WithStrategy(roko.Constant(200*time.Millisecond)), roko.WithJitter()).Do(func(r *roko.Retrier) error {
		return ping(context.Background(), hc)
	})
}
