// Package libs holds retries written with the real retry libraries.
package libs

import (
	"context"
	"net/http"
	"time"

	"example.com/t/remote"
	"github.com/avast/retry-go/v4"
	backoff "github.com/cenkalti/backoff/v4"
	backoff5 "github.com/cenkalti/backoff/v5"
	"github.com/hashicorp/go-retryablehttp"
	sretry "github.com/sethvargo/go-retry"
	"k8s.io/apimachinery/pkg/util/wait"
	kretry "k8s.io/client-go/util/retry"
)

// quiet: backoff v4 defaults have jitter (RandomizationFactor 0.5) and an
// elapsed limit (MaxElapsedTime 15m).
func backoffDefaults(ctx context.Context, c *http.Client, url string) error {
	return backoff.Retry(func() error {
		resp, err := remote.Search(ctx, c, url)
		if err != nil {
			return err
		}
		return resp.Body.Close()
	}, backoff.WithContext(backoff.NewExponentialBackOff(), ctx))
}

// (2) Jitter switched off.
func backoffNoJitter(ctx context.Context, c *http.Client, url string) error {
	b := backoff.NewExponentialBackOff()
	b.RandomizationFactor = 0 // want `no jitter: backoff.Retry`
	return backoff.Retry(func() error {
		resp, err := remote.Search(ctx, c, url)
		if err != nil {
			return err
		}
		return resp.Body.Close()
	}, backoff.WithContext(b, ctx))
}

// (1) No elapsed limit and not bound to the caller's ctx: only the retry
// count stops it.
func backoffAttemptOnly(ctx context.Context, c *http.Client, url string) error {
	b := backoff.NewExponentialBackOff()
	b.InitialInterval = time.Second
	b.Multiplier = 2
	b.MaxElapsedTime = 0
	return backoff.Retry(func() error { // want `wait ignores cancellation: backoff.Retry .*also attempt-only: backoff.Retry makes 6 attempts`
		resp, err := remote.Search(ctx, c, url)
		if err != nil {
			return err
		}
		return resp.Body.Close()
	}, backoff.WithMaxRetries(b, 5))
}

// (6) MaxElapsedTime 10s; waits 2s, 4s, 8s, 16s, 32s (before jitter): the
// fourth attempt would start at 14s.
func backoffBudget(ctx context.Context, c *http.Client, url string) error {
	b := backoff.NewExponentialBackOff()
	b.InitialInterval = 2 * time.Second
	b.Multiplier = 2
	b.MaxElapsedTime = 10 * time.Second
	return backoff.Retry(func() error {
		resp, err := remote.Search(ctx, c, url)
		if err != nil {
			return err
		}
		return resp.Body.Close()
	}, backoff.WithContext(backoff.WithMaxRetries(b, 5), ctx)) // want `schedule longer than its budget: backoff.Retry .*6 attempts.*10s.*attempt 3 is the last that can start`
}

// quiet: backoff v5 defaults (jitter 0.5, DefaultMaxElapsedTime 15m, ctx).
func backoff5Defaults(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	return backoff5.Retry(ctx, func() (*http.Response, error) {
		return remote.Search(ctx, c, url)
	}, backoff5.WithBackOff(backoff5.NewExponentialBackOff()))
}

// (2) retry-go with a fixed delay: every caller retries at the same instants.
func retryGoFixed(ctx context.Context, c *http.Client, url string) error {
	return retry.Do(func() error {
		resp, err := remote.Search(ctx, c, url)
		if err != nil {
			return err
		}
		return resp.Body.Close()
	}, retry.Context(ctx), retry.Attempts(4), retry.Delay(time.Second), retry.DelayType(retry.FixedDelay)) // want `no jitter: retry.Do waits 1s, 1s, 1s`
}

// (1) retry-go defaults: jitter, but 10 attempts and no retry.Context.
func retryGoDefaults(ctx context.Context, c *http.Client, url string) error {
	return retry.Do(func() error { // want `wait ignores cancellation: retry.Do .*also attempt-only: retry.Do makes 10 attempts`
		resp, err := remote.Search(ctx, c, url)
		if err != nil {
			return err
		}
		return resp.Body.Close()
	})
}

// (2) sethvargo/go-retry exponential without WithJitter.
func sethvargoNoJitter(ctx context.Context, c *http.Client, url string) error {
	b := sretry.WithMaxRetries(3, sretry.NewExponential(time.Second)) // want `no jitter: go-retry Do waits 1s, 2s, 4s`
	return sretry.Do(ctx, b, func(ctx context.Context) error {
		resp, err := remote.Search(ctx, c, url)
		if err != nil {
			return sretry.RetryableError(err)
		}
		return resp.Body.Close()
	})
}

// quiet: the same with full jitter.
func sethvargoJitter(ctx context.Context, c *http.Client, url string) error {
	b := sretry.WithMaxRetries(3, sretry.WithFullJitter(sretry.NewExponential(time.Second)))
	return sretry.Do(ctx, b, func(ctx context.Context) error {
		resp, err := remote.Search(ctx, c, url)
		if err != nil {
			return sretry.RetryableError(err)
		}
		return resp.Body.Close()
	})
}

// (3) retryablehttp retries 429 (its default policy) but the linear jitter
// backoff replaces the default one, which was the one reading Retry-After.
func retryableLinear(ctx context.Context, url string) (*http.Response, error) {
	c := retryablehttp.NewClient()
	c.Backoff = retryablehttp.LinearJitterBackoff // want `retry-after ignored: .*retryablehttp`
	req, err := retryablehttp.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	return c.Do(req)
}

// (2) retryablehttp's DefaultBackoff reads Retry-After but has no jitter.
func retryableDefault(ctx context.Context, url string) (*http.Response, error) {
	c := retryablehttp.NewClient() // want `no jitter: retryablehttp.Client.Do waits 1s, 2s, 4s, 8s`
	req, err := retryablehttp.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	return c.Do(req)
}

// (2) k8s wait.Backoff with Jitter 0, long enough to matter.
func kubeNoJitter(ctx context.Context, c *http.Client, url string) error {
	bo := wait.Backoff{Duration: time.Second, Factor: 2, Jitter: 0, Steps: 5} // want `no jitter: wait.ExponentialBackoffWithContext`
	return wait.ExponentialBackoffWithContext(ctx, bo, func(ctx context.Context) (bool, error) {
		resp, err := remote.Search(ctx, c, url)
		if err != nil {
			return false, nil
		}
		return true, resp.Body.Close()
	})
}

// quiet: client-go's DefaultRetry has jitter and waits that total well
// under a second, so an attempt count is bound enough.
func kubeConflict(ctx context.Context, c *http.Client, url string) error {
	return kretry.RetryOnConflict(kretry.DefaultRetry, func() error {
		resp, err := remote.Search(ctx, c, url)
		if err != nil {
			return err
		}
		return resp.Body.Close()
	})
}
