// Package a holds hand-rolled retry loops: each finding next to the loop
// that does the same thing right.
package a

import (
	"context"
	"errors"
	"math/rand"
	"net/http"
	"strconv"
	"time"

	"example.com/t/remote"
)

var errGaveUp = errors.New("gave up")

// (1)+(2) An attempt counter and nothing else: the caller's ctx reaches
// the requests, but no deadline check, no cancellable wait, no jitter.
func fetchAttemptOnly(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for i := 0; i < 4; i++ {
		resp, err := remote.Search(ctx, c, url)
		if err == nil {
			return resp, nil
		}
		if i == 3 {
			break
		}
		time.Sleep(time.Second << i) // want `wait ignores cancellation: .*also attempt-only: retry loop makes 4 attempts with waits 1s, 2s, 4s .*worst case 7s.*no jitter: retry loop waits 1s, 2s, 4s`
	}
	return nil, errGaveUp
}

// (1) quiet as to time, (2) reported: the same loop with nothing that can
// be cancelled in scope (a command's download, a worker's own loop). No
// caller's deadline reaches it to be overrun, so its attempt count is the
// bound it can have; the waits still have no random part.
func fetchNoContext(c *http.Client, url string) (*http.Response, error) {
	for i := 0; i < 4; i++ {
		resp, err := c.Get(url)
		if err == nil {
			return resp, nil
		}
		if i == 3 {
			break
		}
		time.Sleep(time.Second << i) // want `no jitter: retry loop waits 1s, 2s, 4s`
	}
	return nil, errGaveUp
}

// (1) quiet: the same loop with full jitter and a deadline check before each wait.
func fetchBounded(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for i := 0; i < 4; i++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := c.Do(req)
		if err == nil {
			return resp, nil
		}
		wait := time.Duration(rand.Int63n(int64(time.Second << i)))
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return nil, context.DeadlineExceeded
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
	}
	return nil, errGaveUp
}

// (3) A loop that retries 429 with its own curve and never reads Retry-After.
func callIgnoresRetryAfter(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	backoff := time.Second
	for attempt := 0; attempt < 5; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := c.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusTooManyRequests { // want `retry-after ignored: retry loop retries 429`
			return resp, nil
		}
		resp.Body.Close()
		wait := backoff/2 + time.Duration(rand.Int63n(int64(backoff)))
		backoff *= 2
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
	}
	return nil, errGaveUp
}

// (3) The same with transport errors retried too.
func fetchIgnoresRetryAfter(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ {
		resp, err := remote.Search(ctx, c, url)
		if err == nil && resp.StatusCode != http.StatusTooManyRequests { // want `retry-after ignored: retry loop retries 429 but waits`
			return resp, nil
		}
		if resp != nil {
			resp.Body.Close()
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(rand.Int63n(int64(time.Second << attempt)))):
		}
	}
	return nil, errGaveUp
}

// (3) quiet: full jitter, a ctx-aware wait, and Retry-After first.
func callHonoursRetryAfter(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for attempt := 0; attempt < 5; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := c.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable {
			return resp, nil
		}
		wait := time.Duration(rand.Int63n(int64(time.Second << attempt)))
		if s := resp.Header.Get("Retry-After"); s != "" {
			if n, err := strconv.Atoi(s); err == nil {
				wait = time.Duration(n) * time.Second
			}
		}
		resp.Body.Close()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
	}
	return nil, errGaveUp
}

// (3) quiet: a 429 that ends the loop is not retried.
func callStopsOn429(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for attempt := 0; attempt < 3; attempt++ {
		resp, err := remote.Search(ctx, c, url)
		if err == nil && resp.StatusCode == http.StatusTooManyRequests {
			return nil, errors.New("rate limited")
		}
		if err == nil {
			return resp, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(rand.Int63n(int64(time.Second)))):
		}
	}
	return nil, errGaveUp
}

// (5) Each attempt gets 3s; the search service's p99 is 4s.
func searchShortTimeout(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for attempt := 0; attempt < 3; attempt++ {
		actx, cancel := context.WithTimeout(ctx, 3*time.Second) // want `per-attempt timeout below p99: .*3s.*remote.Search.*4s`
		resp, err := remote.Search(actx, c, url)
		cancel()
		if err == nil {
			return resp, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(rand.Int63n(int64(time.Second << attempt)))):
		}
	}
	return nil, errGaveUp
}

// (5) quiet: the per-attempt timeout sits above p99 with headroom.
func searchHeadroom(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	const perAttempt = 6 * time.Second
	for attempt := 0; attempt < 3; attempt++ {
		actx, cancel := context.WithTimeout(ctx, perAttempt)
		resp, err := remote.Search(actx, c, url)
		cancel()
		if err == nil {
			return resp, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(rand.Int63n(int64(time.Second << attempt)))):
		}
	}
	return nil, errGaveUp
}

// (5) quiet: 1s is well above the 300ms p99 of Embed.
func embedTimeout(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for attempt := 0; attempt < 3; attempt++ {
		actx, cancel := context.WithTimeout(ctx, time.Second)
		resp, err := remote.Embed(actx, c, url)
		cancel()
		if err == nil {
			return resp, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(rand.Int63n(int64(100 * time.Millisecond << attempt)))):
		}
	}
	return nil, errGaveUp
}

// (6) Five attempts whose waits (1s, 2s, 4s, 8s) need 15s under a 10s timeout.
func budgetTooShort(parent context.Context, c *http.Client, url string) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(parent, 10*time.Second)
	defer cancel()                             // want `defer cancel\(\) cancels ctx, derived at .* returns what its .* made on that context: the caller reads the body or stream after the cancel`
	for attempt := 0; attempt < 5; attempt++ { // want `schedule longer than its budget: .*5 attempts.*waits 1s, 2s, 4s, 8s.*10s.*attempt 4 is the last that can start`
		resp, err := remote.Search(ctx, c, url)
		if err == nil {
			return resp, nil
		}
		if attempt == 4 {
			break
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second << attempt): // want `no jitter: retry loop waits 1s, 2s, 4s, 8s`
		}
	}
	return nil, errGaveUp
}

// (6) quiet: three attempts (waits 1s, 2s) fit in 10s.
func budgetFits(parent context.Context, c *http.Client, url string) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(parent, 10*time.Second)
	defer cancel() // want `defer cancel\(\) cancels ctx, derived at .* returns what its .* made on that context: the caller reads the body or stream after the cancel`
	for attempt := 0; attempt < 3; attempt++ {
		resp, err := remote.Search(ctx, c, url)
		if err == nil {
			return resp, nil
		}
		if attempt == 2 {
			break
		}
		d := time.Second << attempt
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(d/2 + time.Duration(rand.Int63n(int64(d/2)))):
		}
	}
	return nil, errGaveUp
}

// A loop over endpoints that tries each once is a fallback, not a retry.
func firstHealthy(ctx context.Context, c *http.Client, urls []string) (*http.Response, error) {
	for _, u := range urls {
		resp, err := remote.Search(ctx, c, u)
		if err == nil {
			return resp, nil
		}
	}
	return nil, errGaveUp
}
