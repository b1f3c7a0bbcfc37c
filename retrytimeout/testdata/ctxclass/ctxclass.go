// Package ctxclass holds classifiers that a loop asks about an error only
// when there is one: those that give up on a context's error first (quiet,
// whatever they answer for a nil error), beside one that retries every
// error, a context's included.
package ctxclass

import (
	"context"
	"errors"
	"net/http"
	"time"
)

type statusError struct{ code int }

func (e *statusError) Error() string { return http.StatusText(e.code) }

func get(ctx context.Context, c *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode >= 400 {
		return &statusError{resp.StatusCode}
	}
	return nil
}

// isRetryable gives up on a context's error first; an error it does not
// know is retried.
func isRetryable(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var se *statusError
	if errors.As(err, &se) {
		return se.code >= 500
	}
	return true
}

func fetch(ctx context.Context, c *http.Client, url string) error {
	var err error
	for i := 0; i < 4; i++ {
		if err = get(ctx, c, url); err == nil {
			return nil
		}
		if !isRetryable(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(i+1) * time.Second): // want `no jitter: retry loop waits 1s, 2s, 3s with no random part`
		}
	}
	return err
}

// retryableCtx reads the context itself.
func retryableCtx(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	return err != nil
}

func fetchCtx(ctx context.Context, c *http.Client, url string) error {
	var err error
	for i := 0; i < 4; i++ {
		if err = get(ctx, c, url); err == nil || !retryableCtx(ctx, err) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(i+1) * time.Second): // want `no jitter: retry loop waits 1s, 2s, 3s with no random part`
		}
	}
	return err
}

// retryAll retries every error, a context's too.
func retryAll(err error) bool {
	return err != nil // want `retries a cancelled/expired context's error: ctxclass.retryAll answers retry for context.Canceled, so when ctx is done the retry loop sends the request again up to 3 more times instead of returning`
}

// The classifier retries a context's error, and the wait ignores the
// context: the request is sent again after each wait.
func fetchAll(ctx context.Context, c *http.Client, url string) error {
	var err error
	for i := 0; i < 4; i++ {
		if err = get(ctx, c, url); err == nil || !retryAll(err) {
			return err
		}
		time.Sleep(time.Duration(i+1) * time.Second) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after ctx is done`
	}
	return err
}

// retryEvery is retryAll again, for a loop whose wait returns when ctx is
// done: no request is sent on a done context, so quiet.
func retryEvery(err error) bool {
	return err != nil
}

func fetchAllSelect(ctx context.Context, c *http.Client, url string) error {
	var err error
	for i := 0; i < 4; i++ {
		if err = get(ctx, c, url); err == nil || !retryEvery(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(i+1) * time.Second): // want `no jitter: retry loop waits 1s, 2s, 3s with no random part`
		}
	}
	return err
}
