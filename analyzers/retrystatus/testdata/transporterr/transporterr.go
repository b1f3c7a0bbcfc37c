// Package transporterr: retries of 5xx that give up on the first error of
// the send itself (a refused or reset connection fails at once while the
// 502 a proxy answers for it is retried), beside retries that go round on
// it, classify it, or retry no 5xx.
package transporterr

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/sethvargo/go-retry"
)

func pause(ctx context.Context, i int) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(rand.N(time.Second << i)):
		return nil
	}
}

// Export retries 5xx, but not the reset a 502 stands for.
func Export(ctx context.Context, hc *http.Client, url string) error {
	for i := 0; i < 5; i++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err != nil { // want `retry loop \(5 attempts\) retries 500, 502, 503, 504 but gives up on the first error of the send itself: a connection refused or reset, or an EOF from a server that restarted, fails the call at once with up to 4 attempts left`
			return fmt.Errorf("export: %w", err)
		}
		resp.Body.Close()
		if resp.StatusCode >= 500 {
			if werr := pause(ctx, i); werr != nil {
				return werr
			}
			continue
		}
		if resp.StatusCode >= 300 {
			return fmt.Errorf("export: %s", resp.Status)
		}
		return nil
	}
	return errors.New("export: attempts exhausted")
}

// Fetch: go-retry retries only what is marked retryable; the bare error of
// the send is not.
func Fetch(ctx context.Context, hc *http.Client, url string) error {
	b := retry.WithMaxRetries(3, retry.NewExponential(time.Second))
	return retry.Do(ctx, b, func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err != nil { // want `retry.Do \(4 attempts\) retries 500, 502, 503, 504 but gives up on the first error of the send itself`
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode >= 500 {
			return retry.RetryableError(fmt.Errorf("fetch: %s", resp.Status))
		}
		return nil
	})
}

// Quiet: the send's error goes round like the 5xx.
func Push(ctx context.Context, hc *http.Client, url string) error {
	var last error
	for i := 0; i < 5; i++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPut, url, nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err != nil {
			last = err
			if werr := pause(ctx, i); werr != nil {
				return werr
			}
			continue
		}
		resp.Body.Close()
		if resp.StatusCode >= 500 {
			last = fmt.Errorf("push: %s", resp.Status)
			if werr := pause(ctx, i); werr != nil {
				return werr
			}
			continue
		}
		return nil
	}
	return last
}

// Quiet: the branch classifies the send's error (a choice, right or wrong).
func Sync(ctx context.Context, hc *http.Client, url string) error {
	var last error
	for i := 0; i < 5; i++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err != nil {
			var ne net.Error
			if !errors.As(err, &ne) || !ne.Timeout() {
				return err
			}
			last = err
			continue
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusBadGateway || resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode >= 500 { // want `retry decision retries 500, 502, 503, 504 but not 429`
			last = fmt.Errorf("sync: %s", resp.Status)
			if werr := pause(ctx, i); werr != nil {
				return werr
			}
			continue
		}
		return nil
	}
	return last
}

// Quiet: only 429 is waited out; no failure is retried.
func Limited(ctx context.Context, hc *http.Client, url string) error {
	for i := 0; i < 5; i++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusTooManyRequests {
			if werr := pause(ctx, i); werr != nil {
				return werr
			}
			continue
		}
		return nil
	}
	return errors.New("rate limited")
}

// Transient waits out the two transient answers, 429 and 503, and gives
// up on the refused connection of the restart that a load balancer
// answers 503 for.
func Transient(ctx context.Context, hc *http.Client, url string) error {
	for i := 0; i < 5; i++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err != nil { // want `retry loop \(5 attempts\) retries 429, 503 but gives up on the first error of the send itself: .* while the 503 a load balancer answers for the same restart is retried`
			return err
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable { // want `retries 429 and 503 but not 502 or 504`
			if werr := pause(ctx, i); werr != nil {
				return werr
			}
			continue
		}
		return nil
	}
	return errors.New("unavailable")
}

// Quiet: 503 alone ("come back later") is waited out, a choice.
func Unavailable(ctx context.Context, hc *http.Client, url string) error {
	for i := 0; i < 5; i++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable {
			if werr := pause(ctx, i); werr != nil {
				return werr
			}
			continue
		}
		return nil
	}
	return errors.New("unavailable")
}

// Quiet: backoff retries every error the operation returns.
func Poll(ctx context.Context, hc *http.Client, url string) error {
	return backoff.Retry(func() error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return backoff.Permanent(err)
		}
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode >= 500 {
			return fmt.Errorf("poll: %s", resp.Status)
		}
		return nil
	}, backoff.WithContext(backoff.NewExponentialBackOff(), ctx))
}
