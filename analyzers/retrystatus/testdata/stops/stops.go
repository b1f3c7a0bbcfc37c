// Package stops holds classifiers handed to a retrying client or SDK that
// stop it retrying 429 and 5xx, beside ones that keep the default's.
package stops

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/hashicorp/go-retryablehttp"
)

// Only connection errors are retried: a 429 or a 503 fails at once.
func ConnOnly(url string) (*http.Response, error) {
	c := retryablehttp.NewClient()
	c.CheckRetry = func(ctx context.Context, resp *http.Response, err error) (bool, error) { // want `classifier stops retrying 429 and 5xx: the CheckRetry of retryablehttp.Client.Get gives up on 429 and 5xx, which the client's default retries`
		return err != nil, nil
	}
	return c.Get(url)
}

func connOrCancel(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if err != nil {
		return true, nil
	}
	return false, nil
}

// The same as a named function, with a context check.
func ConnOnlyNamed(url string) (*http.Response, error) {
	c := retryablehttp.NewClient()
	c.CheckRetry = connOrCancel // want `classifier stops retrying 429 and 5xx`
	return c.Get(url)
}

// 5xx retried, 429 not: one of the two is a policy. Quiet.
func ServerOnly(url string) (*http.Response, error) {
	c := retryablehttp.NewClient()
	c.CheckRetry = func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		if err != nil {
			return true, nil
		}
		return resp.StatusCode >= 500, nil
	}
	return c.Get(url)
}

// The library's policy with one exception: quiet.
func Default(url string) (*http.Response, error) {
	c := retryablehttp.NewClient()
	c.CheckRetry = func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		if resp != nil && resp.StatusCode == http.StatusNotImplemented {
			return false, nil
		}
		return retryablehttp.DefaultRetryPolicy(ctx, resp, err)
	}
	return c.Get(url)
}

// An aws Retryer that retries network errors only: no throttling, no 5xx.
type netOnly struct{ aws.Retryer }

func (netOnly) IsErrorRetryable(err error) bool { // want `classifier stops retrying throttling \(429\) and 5xx: netOnly.IsErrorRetryable replaces the SDK's retryables without retrying them`
	var ne net.Error
	return errors.As(err, &ne)
}

// An override that gives up on throttling and on 5xx explicitly.
type noThrottle struct{ aws.Retryer }

func (r noThrottle) IsErrorRetryable(err error) bool { // want `classifier stops retrying throttling \(429\) and 5xx: noThrottle.IsErrorRetryable returns false for them`
	if strings.Contains(err.Error(), "ThrottlingException") {
		return false
	}
	if strings.Contains(err.Error(), "StatusCode: 503") || strings.Contains(err.Error(), "StatusCode: 500") {
		return false
	}
	return r.Retryer.IsErrorRetryable(err)
}

// An override that adds a retryable and hands the rest on: quiet.
type plusEOF struct{ aws.Retryer }

func (r plusEOF) IsErrorRetryable(err error) bool {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	return r.Retryer.IsErrorRetryable(err)
}

var _ = []aws.Retryer{netOnly{}, noThrottle{}, plusEOF{}}
