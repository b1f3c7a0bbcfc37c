// Package shapes holds retries written the way real code writes them, and
// polls beside them that are not retries.
package shapes

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

var schedule = []time.Duration{7 * time.Second, 11 * time.Second}

const reserve = 65 * time.Second

const maxRetries = 2

type statusError struct {
	code       int
	retryAfter time.Duration
}

func (e *statusError) Error() string { return http.StatusText(e.code) }

// call makes one request; a refusal carries the server's Retry-After.
func call(ctx context.Context, url string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusTooManyRequests {
		secs, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		return "", &statusError{code: resp.StatusCode, retryAfter: time.Duration(secs) * time.Second}
	}
	return resp.Status, nil
}

func backoff(attempt int) time.Duration {
	return schedule[min(attempt, len(schedule)-1)]
}

func retryAfter(err error) time.Duration {
	var se *statusError
	if errors.As(err, &se) {
		return se.retryAfter
	}
	return 0
}

func retryable(err error) bool {
	var se *statusError
	return errors.As(err, &se)
}

func roomFor(ctx context.Context, d time.Duration) bool {
	dl, ok := ctx.Deadline()
	if !ok {
		return true
	}
	return time.Until(dl) >= d
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// The incident's retry with helpers for the wait and the guard, a wait
// raised by Retry-After, and a backup call after the last attempt.
func incident(ctx context.Context) (string, error) {
	for attempt := 0; ; attempt++ { // want `retry loop: attempts=3 waits>=7s,11s jitter=no deadline=yes cancellable=yes retryafter=yes guard=wait\+65s fallback classifier`
		out, err := call(ctx, "primary")
		if err == nil {
			return out, nil
		}
		if !retryable(err) {
			return "", err
		}
		if attempt == maxRetries {
			break
		}
		wait := backoff(attempt)
		if ra := retryAfter(err); ra > wait {
			wait = ra
		}
		if !roomFor(ctx, wait+reserve) {
			break
		}
		if err := sleep(ctx, wait); err != nil {
			return "", err
		}
	}
	return call(ctx, "backup")
}

// The same retry without a backup: after the loop only the error remains.
func noBackup(ctx context.Context) (string, error) {
	var err error
	for attempt := 0; attempt < 3; attempt++ { // want `retry loop: attempts=3 waits>=7s,11s jitter=no deadline=yes cancellable=yes retryafter=yes guard=wait\+65s classifier$`
		var out string
		if out, err = call(ctx, "primary"); err == nil {
			return out, nil
		}
		if !retryable(err) {
			return "", err
		}
		wait := backoff(attempt)
		if ra := retryAfter(err); ra > wait {
			wait = ra
		}
		if !roomFor(ctx, wait+reserve) {
			break
		}
		if err := sleep(ctx, wait); err != nil {
			return "", err
		}
	}
	return "", fmt.Errorf("primary: %w", err)
}
