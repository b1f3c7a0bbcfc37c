// Package selectbreak: a break in a wait's ctx.Done() case leaves the
// select, not the loop, so a cancelled retry runs its remaining attempts
// with no wait.
package selectbreak

import (
	"context"
	"errors"
	"net/http"
	"time"
)

func Fetch(ctx context.Context, hc *http.Client, req *http.Request) (*http.Response, error) {
	var resp *http.Response
	var err error
	for i := 0; i < 5; i++ {
		resp, err = hc.Do(req)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		select {
		case <-ctx.Done():
			break // want `break leaves only the select, not the retry loop: once ctx is done, the <-ctx.Done\(\) case is ready at once on every later turn`
		case <-time.After(time.Second): // want `no jitter`
		}
	}
	return resp, err
}

var errSkip = errors.New("skip")

// Labelled: the break names the select; the loop has a label of its own,
// which the fix breaks to.
func Labelled(ctx context.Context, op func() error) error {
	var err error
retry:
	for i := 0; i < 5; i++ {
		if err = op(); err == nil {
			return nil
		} else if errors.Is(err, errSkip) {
			continue retry
		}
	wait:
		select {
		case <-ctx.Done():
			break wait // want `break leaves only the select`
		case <-time.After(time.Second):
		}
	}
	return err
}

// BreaksLoop breaks to the loop's label: quiet.
func BreaksLoop(ctx context.Context, op func() error) error {
	var err error
retry:
	for i := 0; i < 5; i++ {
		if err = op(); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			break retry
		case <-time.After(time.Second):
		}
	}
	return err
}

// Returns: quiet.
func Returns(ctx context.Context, op func() error) error {
	for i := 0; i < 5; i++ {
		if err := op(); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return errors.New("gave up")
}

// CheckedAtTop: the loop tests ctx.Err() before each attempt, so the
// cancel the select let through ends it on the next turn: quiet.
func CheckedAtTop(ctx context.Context, op func() error) error {
	for i := 0; i < 5; i++ {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err := op(); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			break
		case <-time.After(time.Second):
		}
	}
	return errors.New("gave up")
}

// LeavesAfter: a statement after the select leaves the loop: quiet.
func LeavesAfter(ctx context.Context, op func() error) error {
	for {
		if err := op(); err == nil {
			return nil
		}
		stop := false
		select {
		case <-ctx.Done():
			stop = true
			break
		case <-time.After(time.Second):
		}
		if stop {
			break
		}
	}
	return ctx.Err()
}

// Worker: a loop over a job channel with no timer and no fallible call:
// quiet.
func Worker(ctx context.Context, jobs <-chan int, handle func(int)) {
	for {
		select {
		case <-ctx.Done():
			break
		case j := <-jobs:
			handle(j)
		}
	}
}
