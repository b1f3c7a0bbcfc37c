package libs

import (
	"context"
	"errors"
	"net/http"

	retrygo "github.com/avast/retry-go/v4"
	"github.com/cenkalti/backoff/v4"
	"github.com/hashicorp/go-retryablehttp"
	sretry "github.com/sethvargo/go-retry"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
)

type HTTPError struct{ Status int }

func (e *HTTPError) Error() string { return http.StatusText(e.Status) }

func statusOf(err error) int {
	var he *HTTPError
	if errors.As(err, &he) {
		return he.Status
	}
	return 0
}

// retry-go: the RetryIf predicate is the classifier.
func RetryGo(call func() error) error {
	return retrygo.Do(call,
		retrygo.Attempts(5),
		retrygo.RetryIf(func(err error) bool {
			s := statusOf(err)
			return s == 429 || s == 502 || s == 503 // want `retry decision lists 5xx codes 502, 503: 500, 504 and 529 \(overloaded\) are not retried; use s >= 500`
		}),
	)
}

// retryablehttp: CheckRetry is the classifier.
func checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if err != nil {
		return true, nil
	}
	switch resp.StatusCode {
	case http.StatusUnauthorized, http.StatusBadGateway, http.StatusServiceUnavailable: // want `retry decision lists 5xx codes 502, 503: 500, 504 and 529 \(overloaded\) are not retried; use resp.StatusCode >= 500` `retry decision retries 401 \(unauthorized\)`
		return true, nil
	}
	return false, nil
}

func RetryableHTTP(url string) (*http.Response, error) {
	c := retryablehttp.NewClient()
	c.RetryMax = 3
	c.CheckRetry = checkRetry
	return c.Get(url)
}

// retryablehttp with a range check: quiet.
func RetryableHTTPRange(url string) (*http.Response, error) {
	c := retryablehttp.NewClient()
	c.CheckRetry = func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		if err != nil {
			return true, nil
		}
		return resp.StatusCode >= 500, nil
	}
	return c.Get(url)
}

// backoff: the operation decides with backoff.Permanent; the call is to
// an API that sends 529 (overloaded).
func Backoff(call func(url string) (*http.Response, error)) error {
	return backoff.Retry(func() error {
		resp, err := call("https://api.anthropic.com/v1/messages")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode == 500 || resp.StatusCode == 502 { // want `retry decision lists 5xx codes 500, 502: 503, 504 and 529 \(overloaded\) are not retried; use resp.StatusCode >= 500`
			return errors.New("server error")
		}
		if resp.StatusCode >= 400 {
			return backoff.Permanent(errors.New("client error"))
		}
		return nil
	}, backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 4))
}

// backoff: permanent for 4xx but 408 and 429, retry for everything else,
// every 429 included (no LLM API here: a 429 is a rate limit). Quiet.
func BackoffPermanent(call func() (*http.Response, error)) error {
	return backoff.Retry(func() error {
		resp, err := call()
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode >= 400 && resp.StatusCode < 500 && resp.StatusCode != 429 && resp.StatusCode != 408 {
			return backoff.Permanent(errors.New("client error"))
		}
		if resp.StatusCode >= 400 {
			return errors.New("retry")
		}
		return nil
	}, backoff.NewExponentialBackOff())
}

// client-go: the OnError predicate is the classifier.
func ClientGo(call func() error) error {
	return retry.OnError(retry.DefaultBackoff, func(err error) bool {
		return statusOf(err) == http.StatusServiceUnavailable || statusOf(err) == http.StatusGatewayTimeout // want `retry decision lists 5xx codes 503, 504: 500, 502 and 529 \(overloaded\) are not retried; use statusOf\(err\) >= 500`
	}, call)
}

// sethvargo/go-retry: RetryableError marks what is retried.
func Sethvargo(ctx context.Context, call func() (*http.Response, error)) error {
	b := sretry.WithMaxRetries(3, sretry.NewExponential(1e9))
	return sretry.Do(ctx, b, func(ctx context.Context) error {
		resp, err := call()
		if err != nil {
			return sretry.RetryableError(err)
		}
		defer resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusForbidden, http.StatusBadGateway, http.StatusGatewayTimeout: // want `retry decision lists 5xx codes 502, 504: 500, 503 and 529 \(overloaded\) are not retried; use resp.StatusCode >= 500` `retry decision retries 403 \(forbidden\)`
			return sretry.RetryableError(errors.New("retry"))
		case http.StatusOK:
			return nil
		}
		return errors.New("give up")
	})
}

// retry-go: the operation gives up with Unrecoverable.
func RetryGoUnrecoverable(call func() (*http.Response, error)) error {
	return retrygo.Do(func() error {
		resp, err := call()
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusOK:
			return nil
		case http.StatusBadGateway, http.StatusServiceUnavailable: // want `retry decision lists 5xx codes 502, 503: 500, 504 and 529 \(overloaded\) are not retried; use resp.StatusCode >= 500`
			return errors.New("retry")
		}
		return retrygo.Unrecoverable(errors.New(resp.Status))
	}, retrygo.Attempts(4))
}

// wait.ExponentialBackoff: (false, nil) retries, an error gives up.
func WaitBackoff(call func() (*http.Response, error)) error {
	return wait.ExponentialBackoff(retry.DefaultBackoff, func() (bool, error) {
		resp, err := call()
		if err != nil {
			return false, nil
		}
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusBadGateway || resp.StatusCode == http.StatusGatewayTimeout { // want `retry decision lists 5xx codes 502, 504: 500, 503 and 529 \(overloaded\) are not retried; use resp.StatusCode >= 500`
			return false, nil
		}
		if resp.StatusCode >= 300 {
			return false, errors.New(resp.Status)
		}
		return true, nil
	})
}
