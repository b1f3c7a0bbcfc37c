// Package retrylog: retries that go round again in silence, next to ones
// that say what they do (-retrylog only).
package retrylog

import (
	"context"
	"errors"
	"log"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/avast/retry-go/v4"
	"github.com/cenkalti/backoff/v4"
)

var errStatus = errors.New("server error")

func get(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode >= 500 {
		return errStatus
	}
	return nil
}

func wait(ctx context.Context, i int) error {
	t := time.NewTimer(time.Duration(rand.Int64N(int64(time.Second << i))))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Silent: nothing records the three attempts.
func silent(ctx context.Context, url string) error {
	var err error
	for i := 0; i < 3; i++ { // want `retry decision not recorded: retry loop \(3 attempts\) goes round again without a log line, metric or trace event`
		if err = get(ctx, url); err == nil {
			return nil
		}
		if werr := wait(ctx, i); werr != nil {
			return werr
		}
	}
	return err
}

// Quiet: the retry path logs the attempt and the error.
func logged(ctx context.Context, url string) error {
	var err error
	for i := 0; i < 3; i++ {
		if err = get(ctx, url); err == nil {
			return nil
		}
		slog.Warn("retrying", "attempt", i+1, "err", err)
		if werr := wait(ctx, i); werr != nil {
			return werr
		}
	}
	return err
}

// A project's own logger interface.
type Logger interface {
	Warnf(format string, args ...any)
}

type Client struct {
	log     Logger
	onRetry func(attempt int, err error)
}

// Quiet: a logging verb on the project's logger.
func (c *Client) viaLogger(ctx context.Context, url string) error {
	var err error
	for i := 0; i < 3; i++ {
		if err = get(ctx, url); err == nil {
			return nil
		}
		c.log.Warnf("attempt %d: %v", i+1, err)
		if werr := wait(ctx, i); werr != nil {
			return werr
		}
	}
	return err
}

// Quiet: a hook the caller sets.
func (c *Client) viaHook(ctx context.Context, url string) error {
	var err error
	for i := 0; i < 3; i++ {
		if err = get(ctx, url); err == nil {
			return nil
		}
		c.onRetry(i+1, err)
		if werr := wait(ctx, i); werr != nil {
			return werr
		}
	}
	return err
}

// Quiet: a helper of the package logs for the loop.
func note(i int, err error) { log.Printf("attempt %d: %v", i, err) }

func viaHelper(ctx context.Context, url string) error {
	var err error
	for i := 0; i < 3; i++ {
		if err = get(ctx, url); err == nil {
			return nil
		}
		note(i+1, err)
		if werr := wait(ctx, i); werr != nil {
			return werr
		}
	}
	return err
}

// Silent library retries, and the same with their hooks.
func retryGo(ctx context.Context, url string) error {
	return retry.Do(func() error { return get(ctx, url) }, retry.Context(ctx), retry.Attempts(3)) // want `retry decision not recorded: retry.Do \(3 attempts.*add retry.OnRetry`
}

func retryGoHooked(ctx context.Context, url string) error {
	return retry.Do(func() error { return get(ctx, url) }, retry.Context(ctx), retry.Attempts(3),
		retry.OnRetry(func(n uint, err error) { slog.Warn("retrying", "attempt", n, "err", err) }))
}

func backoffSilent(ctx context.Context, url string) error {
	return backoff.Retry(func() error { return get(ctx, url) }, backoff.WithContext(backoff.NewExponentialBackOff(), ctx)) // want `retry decision not recorded: backoff.Retry.*use backoff.RetryNotify`
}

func backoffNotify(ctx context.Context, url string) error {
	return backoff.RetryNotify(func() error { return get(ctx, url) }, backoff.WithContext(backoff.NewExponentialBackOff(), ctx),
		func(err error, d time.Duration) { slog.Warn("retrying", "err", err, "wait", d) })
}

// Quiet: a readiness poll is no retry layer at all.
func waitReady(ctx context.Context, url string) error {
	for {
		resp, err := http.Get(url + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// oneAttempt's condition leaves on the first turn whatever the error (the
// bound is read the wrong way round): it makes one attempt and never goes
// round again, so there is no retry decision to record. Quiet here.
func oneAttempt(ctx context.Context, url string) error {
	const maxRetries = 3
	retries := 0
	for {
		err := get(ctx, url)
		if err == nil || retries < maxRetries {
			return err
		}
		retries++
		if werr := wait(ctx, retries); werr != nil {
			return werr
		}
	}
}
