// Package ctxinline holds retry loops that classify an error inline, with
// no classifier helper: loops that leave on the classes they name and go
// round on every other, a context's error among them, beside loops that
// leave on a context's error, retry one class only, or retry every error
// alike (the attempt-count question, not this one).
package ctxinline

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"time"
)

// statusError is an answer from the server: permanent here.
type statusError struct{ code int }

func (e *statusError) Error() string { return http.StatusText(e.code) }

var errNotFound = errors.New("not found")
var errBusy = errors.New("busy")

func call(ctx context.Context, c *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return errNotFound
	case resp.StatusCode >= 400:
		return &statusError{resp.StatusCode}
	}
	return nil
}

// Invoke leaves on an answer of the server and tries again on anything
// else, a cancelled caller's context.Canceled included.
func Invoke(ctx context.Context, c *http.Client, url string, retries int) error {
	var err error
	for retries >= 0 {
		retries--
		err = call(ctx, c, url)
		if err == nil {
			return nil
		}
		if _, ok := err.(*statusError); ok { // want `retries a cancelled/expired context's error: when call fails with context.Canceled the retry loop goes round again \(its tests of the error, err.\(\*statusError\), leave only on other classes\), so when ctx is done it calls call again instead of returning`
			return err
		}
		log.Printf("retrying: %v", err)
	}
	return err
}

// Fetch leaves on two sentinels and a typed error named with errors.As,
// inside a branch on the error; four attempts.
func Fetch(ctx context.Context, c *http.Client, url string) error {
	var last error
	for i := 0; i < 4; i++ {
		if err := call(ctx, c, url); err != nil {
			var se *statusError
			if errors.As(err, &se) || errors.Is(err, errNotFound) { // want `retries a cancelled/expired context's error: when call fails with context.Canceled .* calls call again up to 3 more times instead of returning`
				return err
			}
			last = err
			continue
		}
		return nil
	}
	return fmt.Errorf("after 4 attempts: %w", last)
}

// InvokeChecked is Invoke with the caller's context tested after the
// call: quiet.
func InvokeChecked(ctx context.Context, c *http.Client, url string, retries int) error {
	var err error
	for retries >= 0 {
		retries--
		err = call(ctx, c, url)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return err
		}
		if _, ok := err.(*statusError); ok {
			return err
		}
	}
	return err
}

// InvokeCtxClass leaves on the context's errors by name: quiet.
func InvokeCtxClass(ctx context.Context, c *http.Client, url string) error {
	var err error
	for i := 0; i < 3; i++ {
		err = call(ctx, c, url)
		if err == nil {
			return nil
		}
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		if _, ok := err.(*statusError); ok {
			return err
		}
	}
	return err
}

// OnlyBusy retries one class it names and leaves on every other, a
// context's error included: quiet.
func OnlyBusy(ctx context.Context, c *http.Client, url string) error {
	var err error
	for i := 0; i < 3; i++ {
		err = call(ctx, c, url)
		if !errors.Is(err, errBusy) {
			return err
		}
	}
	return err
}

// Alike retries every error the same way: how many attempts a cancelled
// caller makes is the attempt-count question, not this one. Quiet here.
func Alike(ctx context.Context, c *http.Client, url string) error {
	var err error
	for i := 0; i < 3; i++ {
		if err = call(ctx, c, url); err == nil {
			return nil
		}
	}
	return err
}

// WhileLive tests the context in the loop's condition: quiet.
func WhileLive(ctx context.Context, c *http.Client, url string) error {
	var err error
	for n := 0; n < 5 && ctx.Err() == nil; n++ {
		err = call(ctx, c, url)
		if err == nil {
			return nil
		}
		if _, ok := err.(*statusError); ok {
			return err
		}
	}
	return err
}

// Waits selects on the context between attempts: the wait ends the retry
// when ctx is done. Quiet.
func Waits(ctx context.Context, c *http.Client, url string) error {
	var err error
	for i := 0; i < 3; i++ {
		err = call(ctx, c, url)
		if err == nil {
			return nil
		}
		if _, ok := err.(*statusError); ok {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	return err
}

// Undecided asks a helper it cannot read through a method: quiet.
func Undecided(ctx context.Context, c *http.Client, url string) error {
	var err error
	for i := 0; i < 3; i++ {
		err = call(ctx, c, url)
		if err == nil {
			return nil
		}
		if t, ok := err.(interface{ Temporary() bool }); ok && !t.Temporary() {
			return err
		}
	}
	return err
}
