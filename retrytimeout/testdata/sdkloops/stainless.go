// Package sdkloops holds SDK request loops written the way the generated
// SDKs write them: a classifier helper on the response alone that honours a
// server's x-should-retry header, a loop condition folded into the exit
// test, a per-attempt context that overwrites the caller's, a request whose
// Context() is the caller's. Beside each, the same loop written correctly,
// and lookalikes that are no retry.
package sdkloops

import (
	"context"
	"math"
	"math/rand"
	"net/http"
	"strconv"
	"time"
)

type config struct {
	Request        *http.Request
	HTTPClient     *http.Client
	MaxRetries     int
	RequestTimeout time.Duration
}

// shouldRetry answers on the response alone; x-should-retry is the
// server's directive, absent on a plain success.
func shouldRetry(req *http.Request, res *http.Response) bool {
	if req.Body != nil && req.GetBody == nil {
		return false
	}
	if res == nil {
		return true
	}
	if res.Header.Get("x-should-retry") == "true" {
		return true
	}
	if res.Header.Get("x-should-retry") == "false" {
		return false
	}
	return res.StatusCode == http.StatusRequestTimeout ||
		res.StatusCode == http.StatusConflict ||
		res.StatusCode == http.StatusTooManyRequests ||
		res.StatusCode >= http.StatusInternalServerError
}

func retryDelay(res *http.Response, retryCount int) time.Duration {
	if res != nil {
		if ra, err := strconv.Atoi(res.Header.Get("Retry-After")); err == nil && ra >= 0 && ra < 60 {
			return time.Duration(ra) * time.Second
		}
	}
	delay := time.Duration(0.5 * float64(time.Second) * math.Pow(2, float64(retryCount)))
	if delay > 8*time.Second {
		delay = 8 * time.Second
	}
	return delay - time.Duration(rand.Int63n(int64(delay/4)))
}

// The generated SDKs' loop before their fix: the per-attempt context
// overwrites ctx and is tested before the retry decision, and the wait
// ignores ctx.
func (cfg *config) execute() (res *http.Response, err error) {
	var cancel context.CancelFunc
	for retryCount := 0; retryCount <= cfg.MaxRetries; retryCount += 1 {
		ctx := cfg.Request.Context()
		if cfg.RequestTimeout != time.Duration(0) {
			ctx, cancel = context.WithTimeout(ctx, cfg.RequestTimeout)
			defer cancel() // want `defer cancel\(\) cancels ctx, derived at .* returns what its .* made on that context: the caller reads the body or stream after the cancel`
		}
		req := cfg.Request.Clone(ctx)
		res, err = cfg.HTTPClient.Do(req)
		if ctx != nil && ctx.Err() != nil { // want `per-attempt timeout ends the retry: ctx is made for each attempt at sdkloops/stainless.go:\d+, but this test leaves the retry loop before the retry decision when ctx is done, so one attempt that hits its own timeout ends the whole retry instead of being retried; keep the caller's context in a variable of its own \(ctx is overwritten by the attempt's\)`
			return nil, ctx.Err()
		}
		if !shouldRetry(cfg.Request, res) || retryCount >= cfg.MaxRetries {
			break
		}
		if res != nil && res.Body != nil {
			res.Body.Close()
		}
		time.Sleep(retryDelay(res, retryCount)) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after ctx is done; wait in a select on ctx.Done\(\) and a timer`
	}
	return res, err
}

// After the fix: the caller's context is tested, and the wait is a select.
// Its per-attempt timeout drops the test execute makes (RequestTimeout 0
// is no timeout there), so a zero RequestTimeout ends every attempt here
// at once: zero-timeout.
func (cfg *config) executeFixed() (res *http.Response, err error) {
	parent := cfg.Request.Context()
	for retryCount := 0; retryCount <= cfg.MaxRetries; retryCount += 1 {
		ctx, cancel := context.WithTimeout(parent, cfg.RequestTimeout) // want `context.WithTimeout with cfg.RequestTimeout, which the package treats as no limit when it is 0 \(sdkloops/stainless.go:66\)`
		res, err = cfg.HTTPClient.Do(cfg.Request.Clone(ctx))
		cancel()
		if parent.Err() != nil {
			return nil, parent.Err()
		}
		if !shouldRetry(cfg.Request, res) || retryCount >= cfg.MaxRetries {
			break
		}
		select {
		case <-parent.Done():
			return nil, parent.Err()
		case <-time.After(retryDelay(res, retryCount)):
		}
	}
	return res, err
}

// again is a job-state test: a header compared with a state, not a yes/no
// directive, so the model does not read it as absent on success.
func again(res *http.Response, err error) bool {
	if err != nil {
		return true
	}
	return res.Header.Get("x-job-state") == "running"
}

// A poll of a job's state through a header: it may go round again after a
// successful response, so it is no retry, and its sleep is no retry wait.
func pollJob(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		res, err := c.Do(req)
		if !again(res, err) {
			return res, nil
		}
		time.Sleep(2 * time.Second)
	}
}
