// Package nevercancelled holds waits whose only context can never be done
// (context.Background, TODO, WithValue on top of them, WithoutCancel), or
// that are reached only when ctx.Done() is nil: nothing cancels them, so
// nothing is ignored. Beside each, the same wait on a context that can be.
package nevercancelled

import (
	"context"
	"errors"
	"math/rand"
	"net/http"
	"time"

	"github.com/cenkalti/backoff/v4"
)

type traceKey struct{}

var errGaveUp = errors.New("gave up")

func get(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	return c.Do(req)
}

func jittered(i int) time.Duration {
	return time.Duration(rand.Int63n(int64(time.Second << i)))
}

// Background plus values: never done, so the sleep ignores nothing.
func backgroundWithValues(c *http.Client, url string) (*http.Response, error) {
	ctx := context.WithValue(context.Background(), traceKey{}, "refresh")
	ctx = context.WithValue(ctx, traceKey{}, "refresh-2")
	for i := 0; i < 4; i++ {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		resp, err := get(ctx, c, url)
		if err == nil {
			return resp, nil
		}
		time.Sleep(jittered(i))
	}
	return nil, errGaveUp
}

// context.TODO and a value on it, in one declaration.
func todoWithValue(c *http.Client, url string) (*http.Response, error) {
	var ctx = context.WithValue(context.TODO(), traceKey{}, 1)
	for i := 0; i < 4; i++ {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		resp, err := get(ctx, c, url)
		if err == nil {
			return resp, nil
		}
		time.Sleep(jittered(i))
	}
	return nil, errGaveUp
}

// WithoutCancel detaches from the parent's cancellation: never done.
func detached(parent context.Context, c *http.Client, url string) (*http.Response, error) {
	ctx := context.WithoutCancel(parent)
	for i := 0; i < 4; i++ {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		resp, err := get(ctx, c, url)
		if err == nil {
			return resp, nil
		}
		time.Sleep(jittered(i))
	}
	return nil, errGaveUp
}

// A value on a cancellable context is as cancellable as its parent.
func valueOnCancellable(parent context.Context, c *http.Client, url string) (*http.Response, error) {
	ctx := context.WithValue(parent, traceKey{}, "x")
	for i := 0; i < 4; i++ {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		resp, err := get(ctx, c, url)
		if err == nil {
			return resp, nil
		}
		time.Sleep(jittered(i)) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after ctx is done`
	}
	return nil, errGaveUp
}

// A timeout on Background can be done.
func timeoutOnBackground(c *http.Client, url string) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel() // want `defer cancel\(\) cancels ctx, derived at .* returns what its .* made on that context: the caller reads the body or stream after the cancel`
	for i := 0; i < 4; i++ {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		resp, err := get(ctx, c, url)
		if err == nil {
			return resp, nil
		}
		time.Sleep(jittered(i)) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after ctx is done`
	}
	return nil, errGaveUp
}

// The sleep is reached only when ctx.Done() is nil: a context that can
// never be cancelled. A cancellable one waits in the select.
func doneNil(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for i := 0; i < 4; i++ {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		resp, err := get(ctx, c, url)
		if err == nil {
			return resp, nil
		}
		if ctx.Done() == nil {
			time.Sleep(jittered(i))
			continue
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(jittered(i)):
		}
	}
	return nil, errGaveUp
}

// The same split the other way round: the select first, then the sleep
// after an early continue when Done is not nil.
func doneNotNil(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for i := 0; i < 4; i++ {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		resp, err := get(ctx, c, url)
		if err == nil {
			return resp, nil
		}
		if done := ctx.Done(); done != nil {
			select {
			case <-done:
				return nil, ctx.Err()
			case <-time.After(jittered(i)):
			}
			continue
		}
		time.Sleep(jittered(i))
	}
	return nil, errGaveUp
}

// The lookalike: the sleep runs when Done is NOT nil, so it can be cancelled.
func doneWrongWay(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for i := 0; i < 4; i++ {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		resp, err := get(ctx, c, url)
		if err == nil {
			return resp, nil
		}
		if ctx.Done() != nil {
			time.Sleep(jittered(i)) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after ctx is done`
		}
	}
	return nil, errGaveUp
}

// A backoff bound on purpose to Background, without an elapsed limit but
// with a retry bound: no caller's deadline reaches it. Quiet.
func boundToBackground(c *http.Client, url string) error {
	ctx := context.Background()
	eb := backoff.NewExponentialBackOff()
	eb.InitialInterval = time.Second
	eb.MaxElapsedTime = 0
	return backoff.Retry(func() error {
		resp, err := get(ctx, c, url)
		if err != nil {
			return err
		}
		return resp.Body.Close()
	}, backoff.WithContext(backoff.WithMaxRetries(eb, 5), ctx))
}

// The same schedule bound to no context at all, with none in scope: no
// caller's deadline reaches it either. Quiet.
func boundToNothing(c *http.Client, url string) error {
	eb := backoff.NewExponentialBackOff()
	eb.InitialInterval = time.Second
	eb.MaxElapsedTime = 0
	return backoff.Retry(func() error {
		resp, err := get(context.Background(), c, url)
		if err != nil {
			return err
		}
		return resp.Body.Close()
	}, backoff.WithMaxRetries(eb, 5))
}

// The same schedule with the caller's ctx in scope and not given to the
// backoff: each wait overruns a deadline the retry could have read.
func boundToNothingCaller(ctx context.Context, c *http.Client, url string) error {
	eb := backoff.NewExponentialBackOff()
	eb.InitialInterval = time.Second
	eb.MaxElapsedTime = 0
	return backoff.Retry(func() error { // want `wait ignores cancellation: backoff.Retry .*also attempt-only: backoff.Retry makes 6 attempts with waits 1s, 1.5s, 2.25s, 3.38s, 5.06s`
		resp, err := get(ctx, c, url)
		if err != nil {
			return err
		}
		return resp.Body.Close()
	}, backoff.WithMaxRetries(eb, 5))
}

// temporal's shape: the select under `if done != nil` leaves on every
// case, so the sleep after it runs only when Done is nil.
func doneSelectLeaves(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for i := 0; i < 4; i++ {
		resp, err := get(ctx, c, url)
		if err == nil {
			return resp, nil
		}
		if done := ctx.Done(); done != nil {
			timer := time.NewTimer(jittered(i))
			select {
			case <-done:
				timer.Stop()
				return nil, ctx.Err()
			case <-timer.C:
				continue
			}
		}
		time.Sleep(jittered(i))
	}
	return nil, errGaveUp
}

// The lookalike: one case of the select falls through to the sleep.
func doneSelectFallsThrough(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for i := 0; i < 4; i++ {
		resp, err := get(ctx, c, url)
		if err == nil {
			return resp, nil
		}
		if done := ctx.Done(); done != nil {
			select {
			case <-done:
				return nil, ctx.Err()
			case <-time.After(jittered(i)):
			}
		}
		time.Sleep(jittered(i)) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after ctx is done`
	}
	return nil, errGaveUp
}

// go-redis's reconnect probe: each turn dials on a fresh timeout over
// Background; the sleep after a failed dial has no caller's context to
// honour (the probe's own deadline bounds only its attempt).
func probe(c *http.Client, url string, closed func() bool) *http.Response {
	for i := 0; !closed(); i++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		resp, err := get(ctx, c, url)
		if err != nil {
			time.Sleep(jittered(i))
			cancel()
			continue
		}
		cancel()
		return resp
	}
	return nil
}

// The lookalike: the per-attempt timeout is over the caller's context.
func probeCaller(parent context.Context, c *http.Client, url string, closed func() bool) *http.Response {
	for i := 0; !closed(); i++ {
		ctx, cancel := context.WithTimeout(parent, time.Second)
		resp, err := get(ctx, c, url)
		if err != nil {
			time.Sleep(jittered(i)) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after parent is done`
			cancel()
			continue
		}
		cancel()
		return resp
	}
	return nil
}

// warm is only ever called on Background (its every call is in sight):
// nothing can cancel its wait, quiet.
func warm(ctx context.Context, c *http.Client, url string) {
	for i := 0; i < 5; i++ {
		if resp, err := get(ctx, c, url); err == nil {
			resp.Body.Close()
			return
		}
		time.Sleep(jittered(i))
	}
}

func Start(c *http.Client, url string) { go warm(context.Background(), c, url) }

// refresh is also called on a caller's context: reported.
func refresh(ctx context.Context, c *http.Client, url string) {
	for i := 0; i < 5; i++ {
		if resp, err := get(ctx, c, url); err == nil {
			resp.Body.Close()
			return
		}
		time.Sleep(jittered(i)) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after ctx is done`
	}
}

func Boot(c *http.Client, url string)                        { refresh(context.Background(), c, url) }
func Reload(ctx context.Context, c *http.Client, url string) { refresh(ctx, c, url) }

// handed is handed on as a value: its callers are not all in sight,
// reported.
func handed(ctx context.Context, c *http.Client, url string) {
	for i := 0; i < 5; i++ {
		if resp, err := get(ctx, c, url); err == nil {
			resp.Body.Close()
			return
		}
		time.Sleep(jittered(i)) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after ctx is done`
	}
}

var Hook = handed

func Init(c *http.Client, url string) { handed(context.Background(), c, url) }
