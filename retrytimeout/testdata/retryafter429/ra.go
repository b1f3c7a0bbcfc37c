// Package retryafter429: Retry-After read only for a 429 while 503 is
// retried too.
package retryafter429

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"
)

// RecoverableError is retried by send with its backoff.
type RecoverableError struct {
	error
	backoff time.Duration
}

const defaultBackoff = time.Second

func parseRetryAfter(s string) time.Duration {
	if n, err := strconv.Atoi(s); err == nil {
		return time.Duration(n) * time.Second
	}
	return defaultBackoff
}

// store turns 5xx into a recoverable error with the default backoff and
// reads Retry-After only for 429.
func store(c *http.Client, req *http.Request, retryOnRateLimit bool) error {
	resp, err := c.Do(req)
	if err != nil {
		return RecoverableError{err, defaultBackoff}
	}
	defer resp.Body.Close()
	err = errors.New(resp.Status)
	if resp.StatusCode/100 == 5 { // want `retry-after read only on 429: store reads Retry-After only when the status is 429 \(retryafter429/ra.go:42\), but this branch retries 503 too`
		return RecoverableError{err, defaultBackoff}
	}
	if retryOnRateLimit && resp.StatusCode == http.StatusTooManyRequests {
		return RecoverableError{err, parseRetryAfter(resp.Header.Get("Retry-After"))}
	}
	return err
}

// storeBoth reads it for every recoverable status: quiet.
func storeBoth(c *http.Client, req *http.Request) error {
	resp, err := c.Do(req)
	if err != nil {
		return RecoverableError{err, defaultBackoff}
	}
	defer resp.Body.Close()
	err = errors.New(resp.Status)
	if resp.StatusCode/100 == 5 || resp.StatusCode == http.StatusTooManyRequests {
		return RecoverableError{err, parseRetryAfter(resp.Header.Get("Retry-After"))}
	}
	return err
}

// storeNo5xx gives up on 5xx: only 429 is retried, quiet.
func storeNo5xx(c *http.Client, req *http.Request) error {
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusTooManyRequests {
		return RecoverableError{errors.New(resp.Status), parseRetryAfter(resp.Header.Get("Retry-After"))}
	}
	if resp.StatusCode >= 500 {
		return errors.New("server error: " + resp.Status)
	}
	return nil
}

// send retries a RecoverableError with its backoff.
func send(ctx context.Context, c *http.Client, req *http.Request) error {
	for try := 0; try < 5; try++ {
		err := store(c, req, true)
		var re RecoverableError
		if !errors.As(err, &re) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(re.backoff):
		}
	}
	return errors.New("gave up")
}

// checkRetry is the package's retry policy: 429 and every 5xx but 501.
func checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if err != nil {
		return true, err
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		return true, nil
	}
	if resp.StatusCode == 0 || (resp.StatusCode >= 500 && resp.StatusCode != http.StatusNotImplemented) {
		return true, errors.New(resp.Status)
	}
	return false, nil
}

// backoff is the wait paired with checkRetry; it honours Retry-After only
// on 429.
func backoff(lo, hi time.Duration, attempt int, resp *http.Response) time.Duration {
	if resp != nil {
		if resp.StatusCode == http.StatusTooManyRequests { // want `retry-after read only on 429: backoff reads Retry-After only when the status is 429, but checkRetry \(retryafter429/ra.go:103\) retries 503 too`
			if s, ok := resp.Header["Retry-After"]; ok {
				if n, err := strconv.ParseInt(s[0], 10, 64); err == nil {
					return time.Second * time.Duration(n)
				}
			}
		}
	}
	d := time.Duration(math.Pow(2, float64(attempt)) * float64(lo))
	return min(d, hi)
}

// backoffBoth reads it on 429 and 503: quiet.
func backoffBoth(min, max time.Duration, attempt int, resp *http.Response) time.Duration {
	if resp != nil {
		switch resp.StatusCode {
		case http.StatusTooManyRequests, http.StatusServiceUnavailable:
			if n, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
				return time.Duration(n) * time.Second
			}
		}
	}
	return min << attempt
}

// handler answers 503 with a Retry-After of its own: a server, quiet.
func handler(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("X-Busy") != "" {
		w.Header().Set("Retry-After", "5")
		w.WriteHeader(http.StatusServiceUnavailable)
	}
}

// getPage reports Retry-After in the error of a 429 and fails every other
// status the same way: nothing here retries or waits, the header is only
// text. Quiet.
func getPage(c *http.Client, req *http.Request) ([]byte, error) {
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusTooManyRequests {
		return nil, fmt.Errorf("429 throttled: retry-after=%s", resp.Header.Get("Retry-After"))
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("http %d", resp.StatusCode)
	}
	return nil, nil
}
