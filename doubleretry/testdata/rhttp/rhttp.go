// Package rhttp holds the go-retryablehttp cases (the client itself and an
// *http.Client from StandardClient()), wrapped by an own loop, by
// sethvargo/go-retry and by cenkalti/backoff/v5.
package rhttp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	backoff "github.com/cenkalti/backoff/v5"
	"github.com/hashicorp/go-retryablehttp"
	goretry "github.com/sethvargo/go-retry"
)

// Poll retries 3 times around a retryablehttp client with RetryMax 3.
func Poll(url string) (*http.Response, error) {
	c := retryablehttp.NewClient()
	c.RetryMax = 3
	var err error
	for i := 0; i < 3; i++ { // want `retry loop \(3 attempts\) at rhttp/rhttp.go:23 wraps retryablehttp.Client.Get at rhttp/rhttp.go:24, which retries 3 more times \(client built at rhttp/rhttp.go:20\): up to 12 requests per call; pick one layer: RetryMax = 0 on the retryablehttp client, or drop this loop`
		resp, e := c.Get(url)
		if e == nil {
			return resp, nil
		}
		err = e
		time.Sleep(time.Second)
	}
	return nil, err
}

// PollNoRetry: RetryMax = 0, the client does not retry: quiet.
func PollNoRetry(url string) (*http.Response, error) {
	c := retryablehttp.NewClient()
	c.RetryMax = 0
	var err error
	for i := 0; i < 3; i++ {
		resp, e := c.Get(url)
		if e == nil {
			return resp, nil
		}
		err = e
		time.Sleep(time.Second)
	}
	return nil, err
}

// Standard: go-retry (2 retries) around an *http.Client from StandardClient()
// whose transport retries 4 more times by default.
func Standard(ctx context.Context, url string) ([]byte, error) {
	hc := retryablehttp.NewClient().StandardClient()
	var body []byte
	b := goretry.WithMaxRetries(2, goretry.NewExponential(time.Second))
	err := goretry.Do(ctx, b, func(ctx context.Context) error { // want `go-retry Do \(3 attempts\) at rhttp/rhttp.go:56 wraps http.Client.Do \(retryablehttp StandardClient\) at rhttp/rhttp.go:61, which retries 4 more times by default \(client built at rhttp/rhttp.go:53\): up to 15 requests per call; pick one layer: RetryMax = 0 on the retryablehttp client, or drop this go-retry Do`
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err != nil {
			return goretry.RetryableError(err)
		}
		defer resp.Body.Close()
		body, err = io.ReadAll(resp.Body)
		return err
	})
	return body, err
}

// Plain: go-retry around a plain *http.Client: one layer, quiet.
func Plain(ctx context.Context, url string) ([]byte, error) {
	hc := &http.Client{Timeout: 10 * time.Second}
	var body []byte
	b := goretry.WithMaxRetries(2, goretry.NewExponential(time.Second))
	err := goretry.Do(ctx, b, func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err != nil {
			return goretry.RetryableError(err)
		}
		defer resp.Body.Close()
		body, err = io.ReadAll(resp.Body)
		return err
	})
	return body, err
}

// client is built at package level with the default RetryMax (4).
var client = retryablehttp.NewClient()

func fetch(url string) (string, error) {
	resp, err := client.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("status %d", resp.StatusCode)
	}
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// V5 wraps fetch (a retrying client) in backoff/v5 with 3 tries.
func V5(ctx context.Context, url string) (string, error) {
	return backoff.Retry(ctx, func() (string, error) { // want `backoff.Retry \(3 attempts\) at rhttp/rhttp.go:111 wraps retryablehttp.Client.Get at rhttp/rhttp.go:97 \(through rhttp.fetch\), which retries 4 more times by default \(client built at rhttp/rhttp.go:94\): up to 15 requests per call`
		return fetch(url)
	}, backoff.WithMaxTries(3), backoff.WithBackOff(backoff.NewExponentialBackOff()))
}

// V5Plain: backoff/v5 around a plain http.Get: quiet.
func V5Plain(ctx context.Context, url string) (int, error) {
	return backoff.Retry(ctx, func() (int, error) {
		resp, err := http.Get(url)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}, backoff.WithMaxTries(3))
}

// both fetches from the main client, then from a mirror client with
// RetryMax 1.
func both(url string) error {
	if _, err := fetch(url); err != nil {
		return err
	}
	mirror := retryablehttp.NewClient()
	mirror.RetryMax = 1
	resp, err := mirror.Get(url)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// Both: one loop around two retrying clients: reported once, with the worse
// chain and the other layer it also wraps.
func Both(url string) error {
	var err error
	for i := 0; i < 3; i++ { // want `retry loop \(3 attempts\) at rhttp/rhttp.go:147 wraps retryablehttp.Client.Get at rhttp/rhttp.go:97 \(through rhttp.both, rhttp.fetch\), which retries 4 more times by default \(client built at rhttp/rhttp.go:94\): up to 15 requests per call; pick one layer: RetryMax = 0 on the retryablehttp client, or drop this loop; this loop also wraps retryablehttp.Client.Get at rhttp/rhttp.go:136 \(up to 6 requests per call\)`
		if err = both(url); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}
