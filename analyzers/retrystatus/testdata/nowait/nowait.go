// Package nowait holds retries of overload answers (503, 429, any 5xx)
// that go round again with no wait, beside retries that wait somewhere on
// the way (a sleep, a helper, a limiter, a select) and retries of answers
// that are no overload (a conflict, a stale connection).
package nowait

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/http"
	"time"

	"golang.org/x/time/rate"
)

type httpError struct{ code int }

func (e *httpError) Error() string   { return fmt.Sprintf("status %d", e.code) }
func (e *httpError) StatusCode() int { return e.code }

// retry re-runs fn on any 5xx, three times, back to back.
func retry(fn func() error) error {
	var err error
	for i := 0; i < 3; i++ { // want `retry loop retries every 5xx with no wait between attempts: its 3 attempts go out back to back, so a dependency that answered that it is overloaded or limiting gets them again within milliseconds, from every client that got the same answer; wait between attempts \(a backoff with jitter, or the Retry-After the server sends\)`
		err = fn()
		if err == nil {
			return nil
		}
		var he *httpError
		if errors.As(err, &he) && he.StatusCode() >= 500 {
			continue
		}
		break
	}
	return err
}

// Send retries 429 and 503 at once.
func Send(ctx context.Context, hc *http.Client, url string) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ { // want `retry loop retries 429 and 503 with no wait between attempts: its 4 attempts go out back to back`
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := hc.Do(req)
		if err != nil { // want `retry loop \(4 attempts\) retries 429, 503 but gives up on the first error of the send itself: .* while the 503 a load balancer answers for the same restart is retried`
			return nil, err
		}
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable { // want `retry decision retries 429 and 503 but not 502 or 504`
			resp.Body.Close()
			continue
		}
		return resp, nil
	}
	return nil, errors.New("gave up")
}

func pause(ctx context.Context, i int) error {
	t := time.NewTimer(time.Duration(1<<i) * 200 * time.Millisecond)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Paused waits through a helper of the package: quiet.
func Paused(ctx context.Context, hc *http.Client, url string) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := hc.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode == http.StatusServiceUnavailable {
			resp.Body.Close()
			if err := pause(ctx, attempt); err != nil {
				return nil, err
			}
			continue
		}
		return resp, nil
	}
	return nil, errors.New("gave up")
}

// Limited waits on a rate limiter before each attempt: quiet.
func Limited(ctx context.Context, lim *rate.Limiter, hc *http.Client, url string) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ {
		if err := lim.Wait(ctx); err != nil {
			return nil, err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := hc.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode == http.StatusTooManyRequests {
			resp.Body.Close()
			continue
		}
		return resp, nil
	}
	return nil, errors.New("gave up")
}

// Stale retries a dropped pooled connection at once: no overload. Quiet.
func Stale(exec func() error) error {
	var err error
	for i := 0; i < 3; i++ {
		if err = exec(); !errors.Is(err, driver.ErrBadConn) {
			return err
		}
	}
	return err
}

// Conflict re-reads and writes again on 409: quiet.
func Conflict(ctx context.Context, hc *http.Client, url string) error {
	for i := 0; i < 5; i++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPut, url, nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusConflict {
			continue
		}
		return nil
	}
	return errors.New("conflict")
}
