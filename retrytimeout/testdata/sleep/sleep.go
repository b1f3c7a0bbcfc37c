// Package sleep holds waits that ignore cancellation, and the rewrite the
// analyzer offers for each.
package sleep

import (
	"context"
	"errors"
	"math/rand"
	"net/http"
	"time"

	"example.com/t/remote"
)

var errGaveUp = errors.New("gave up")

func jittered(i int) time.Duration {
	d := time.Second << i
	return d/2 + time.Duration(rand.Int63n(int64(d/2)))
}

// Two results: the fix returns nil and ctx.Err(). The loop has no other
// wall-clock bound, and the one message says both.
func twoResults(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for attempt := 0; attempt < 3; attempt++ {
		resp, err := remote.Search(ctx, c, url)
		if err == nil {
			return resp, nil
		}
		time.Sleep(jittered(attempt)) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after ctx is done; the retry is also attempt-only: retry loop makes 3 attempts`
	}
	return nil, errGaveUp
}

// One error result, and a context under another name.
func errorOnly(c context.Context, hc *http.Client, url string) error {
	for attempt := 0; attempt < 3; attempt++ {
		resp, err := remote.Search(c, hc, url)
		if err == nil {
			resp.Body.Close()
			return nil
		}
		if c.Err() != nil {
			return c.Err()
		}
		time.Sleep(jittered(attempt)) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after c is done`
	}
	return errGaveUp
}

type result struct {
	body  []byte
	taken time.Duration
}

// Several results of several kinds: zero values for each.
func manyResults(ctx context.Context, c *http.Client, url string) (result, string, int, time.Time, error) {
	for attempt := 0; attempt < 3; attempt++ {
		if err := ctx.Err(); err != nil {
			return result{}, "", 0, time.Time{}, err
		}
		resp, err := remote.Search(ctx, c, url)
		if err == nil {
			resp.Body.Close()
			return result{}, "ok", resp.StatusCode, time.Now(), nil
		}
		time.Sleep(jittered(attempt)) // want `wait ignores cancellation`
	}
	return result{}, "", 0, time.Time{}, errGaveUp
}

// Named results: the fix returns them as they stand.
func namedResults(ctx context.Context, c *http.Client, url string) (n int, err error) {
	for attempt := 0; attempt < 3; attempt++ {
		if ctx.Err() != nil {
			return n, ctx.Err()
		}
		var resp *http.Response
		resp, err = remote.Search(ctx, c, url)
		if err == nil {
			n = resp.StatusCode
			resp.Body.Close()
			return n, nil
		}
		time.Sleep(jittered(attempt)) // want `wait ignores cancellation`
	}
	return n, err
}

// No results (a worker): the fix returns.
func worker(ctx context.Context, c *http.Client, url string) {
	for attempt := 0; attempt < 3; attempt++ {
		if ctx.Err() != nil {
			return
		}
		if resp, err := remote.Search(ctx, c, url); err == nil {
			resp.Body.Close()
			return
		}
		time.Sleep(jittered(attempt)) // want `wait ignores cancellation`
	}
}

// A bool result cannot carry ctx.Err(): the finding, but no fix.
func boolResult(ctx context.Context, c *http.Client, url string) bool {
	for attempt := 0; attempt < 3; attempt++ {
		if ctx.Err() != nil {
			return false
		}
		if resp, err := remote.Search(ctx, c, url); err == nil {
			resp.Body.Close()
			return true
		}
		time.Sleep(jittered(attempt)) // want `wait ignores cancellation`
	}
	return false
}

// Generic result type: *new(T) is its zero value.
func generic[T any](ctx context.Context, get func(context.Context) (T, error)) (T, error) {
	var last error
	for attempt := 0; attempt < 3; attempt++ {
		if ctx.Err() != nil {
			return *new(T), ctx.Err()
		}
		v, err := get(ctx)
		if err == nil {
			return v, nil
		}
		last = err
		time.Sleep(jittered(attempt)) // want `wait ignores cancellation`
	}
	return *new(T), last
}

// quiet: the wait already selects on ctx.Done().
func cancellable(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for attempt := 0; attempt < 3; attempt++ {
		resp, err := remote.Search(ctx, c, url)
		if err == nil {
			return resp, nil
		}
		t := time.NewTimer(jittered(attempt))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
	return nil, errGaveUp
}

// No context anywhere in scope: nothing for the sleep to cancel on, so no
// wait finding, and no caller's deadline for the attempt count to overrun.
// Quiet.
func noContext(c *http.Client, url string) (*http.Response, error) {
	for attempt := 0; attempt < 3; attempt++ {
		resp, err := c.Get(url)
		if err == nil {
			return resp, nil
		}
		time.Sleep(time.Duration(rand.Int63n(int64(100 * time.Millisecond))))
	}
	return nil, errGaveUp
}

// The sleep ignores ctx and has no jitter: one line, one message.
func fixedSleep(ctx context.Context, c *http.Client, url string) error {
	for attempt := 0; attempt < 4; attempt++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		resp, err := remote.Search(ctx, c, url)
		if err == nil {
			resp.Body.Close()
			return nil
		}
		if attempt == 3 {
			break
		}
		time.Sleep(time.Second << attempt) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after ctx is done \(waits 1s, 2s, 4s: a cancel is seen only when the wait ends, up to 4s later\); wait in a select on ctx.Done\(\) and a timer; also no jitter: retry loop waits 1s, 2s, 4s`
	}
	return errGaveUp
}
