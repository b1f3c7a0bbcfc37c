// Package ratelimit holds retries that give up on 429 while they retry
// 5xx, beside ones that read the error first or decide nothing about 5xx.
package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"example.com/t/ratelimit/classify"
)

type statusError struct {
	code int
	kind string
}

func (e *statusError) Error() string { return fmt.Sprintf("status %d (%s)", e.code, e.kind) }

func call(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return &statusError{code: resp.StatusCode}
	}
	return nil
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// The classifier of another package gives up on 429: a rate limit ends
// the retry at once. The wait comes first in the body, behind attempt > 0.
func Fallback(ctx context.Context, urls []string) error { // want Fallback:`retry loop at ratelimit/ratelimit.go:55 gives up on 529 \(lists 500, 502, 503, 504 at ratelimit/ratelimit.go:67\)`
	var last error
	for _, u := range urls {
		for attempt := range 3 {
			if attempt > 0 {
				if !sleepCtx(ctx, time.Second<<attempt) {
					return ctx.Err()
				}
			}
			err := call(ctx, u)
			if err == nil {
				return nil
			}
			last = err
			var se *statusError
			if !errors.As(err, &se) || !classify.Retryable(se.code) { // want `retry decision gives up on 429 \(too many requests\) \(in classify.Retryable at classify/classify.go:9\) but retries 500, 502, 503, 504: a rate limit ends the retry at once`
				break
			}
		}
	}
	return last
}

// The same decision written in the loop.
func Inline(ctx context.Context, url string) error {
	for attempt := 0; attempt < 4; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		resp.Body.Close()
		switch {
		case resp.StatusCode == http.StatusTooManyRequests: // want `retry decision gives up on 429 \(too many requests\) but retries 502, 503, 504: a rate limit ends the retry at once`
			return errors.New("rate limited")
		case resp.StatusCode >= 500 && resp.StatusCode != 500:
			time.Sleep(time.Second)
			continue
		}
		return nil
	}
	return errors.New("gave up")
}

// 429 and 5xx retried: quiet.
func BothRetried(ctx context.Context, url string) error {
	for attempt := 0; attempt < 4; attempt++ {
		err := call(ctx, url)
		var se *statusError
		if err == nil {
			return nil
		}
		if errors.As(err, &se) && !classify.Transient(se.code) {
			return err
		}
		time.Sleep(time.Second)
	}
	return errors.New("gave up")
}

// 429 stopped only after the error says the quota is spent; a rate limit
// is retried: quiet.
func QuotaRead(ctx context.Context, url string) error {
	for attempt := 0; attempt < 4; attempt++ {
		err := call(ctx, url)
		if err == nil {
			return nil
		}
		var se *statusError
		if errors.As(err, &se) {
			if se.code == http.StatusTooManyRequests && strings.Contains(err.Error(), "insufficient_quota") {
				return err
			}
			if se.code != http.StatusTooManyRequests && se.code < 500 {
				return err
			}
		}
		time.Sleep(time.Second)
	}
	return errors.New("gave up")
}

// 429 given up on, and no 5xx retried (only connection errors are): a
// decision about something else. Quiet.
func ConnOnly(ctx context.Context, url string) error {
	for attempt := 0; attempt < 4; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusTooManyRequests {
			return errors.New("rate limited")
		}
		return nil
	}
	return errors.New("gave up")
}

// A handler that writes 429 decides no retry: quiet.
func Handler(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("X-Over") != "" {
		w.WriteHeader(http.StatusTooManyRequests)
		return
	}
	w.WriteHeader(http.StatusServiceUnavailable)
}

type sender struct {
	cfg struct{ DropRateLimited bool }
}

// Gated gives up on 429 only when its configuration asks to drop rate-limited
// work (off by default: 429 is retried then): the setting's choice, quiet.
func (s *sender) Gated(ctx context.Context, url string) error {
	for attempt := 0; attempt < 4; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		resp.Body.Close()
		if s.cfg.DropRateLimited && resp.StatusCode == http.StatusTooManyRequests {
			return errors.New("dropped: rate limited")
		}
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
			time.Sleep(time.Second)
			continue
		}
		return nil
	}
	return errors.New("gave up")
}

// PerAttempt joins the 429 test to a flag of the attempt's own answer, which
// says nothing of a setting: reported.
func PerAttempt(ctx context.Context, url string) error {
	for attempt := 0; attempt < 4; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		resp.Body.Close()
		if !resp.Close && resp.StatusCode == http.StatusTooManyRequests { // want `retry decision gives up on 429 \(too many requests\) but retries 500, 502, 503, 504`
			return errors.New("rate limited")
		}
		if resp.StatusCode >= 500 {
			time.Sleep(time.Second)
			continue
		}
		return nil
	}
	return errors.New("gave up")
}
