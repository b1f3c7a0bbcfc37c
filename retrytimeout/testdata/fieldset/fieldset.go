// Package fieldset holds a client whose retried statuses are a set in a
// struct field set by the constructor, with a linear backoff from another
// field and no jitter, beside the same client with jitter and Retry-After;
// and loops that retry through a code set (a field or a package variable
// written once) holding 429 or 503 without reading Retry-After, beside the
// same with the header read, a set of other 5xx codes, a set changed
// elsewhere and a set only counted; Store: Retry-After read for 429 only.
package fieldset

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"sync/atomic"
	"time"
)

var errGaveUp = errors.New("gave up")

// Client keeps its retry policy in fields.
type Client struct {
	hc            *http.Client
	retryOnStatus map[int]bool
	maxRetries    int
	backoff       time.Duration
}

// New sets the policy once.
func New() *Client {
	return &Client{
		hc:            http.DefaultClient,
		retryOnStatus: map[int]bool{502: true, 503: true, 504: true},
		maxRetries:    3,
		backoff:       time.Second,
	}
}

func (c *Client) wait(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// Do waits 1s, 2s, 3s the same for every caller and every status.
func (c *Client) Do(ctx context.Context, req *http.Request) (*http.Response, error) {
	for attempt := 0; attempt <= c.maxRetries; attempt++ {
		resp, err := c.hc.Do(req.WithContext(ctx))
		if err != nil {
			return nil, err
		}
		if !c.retryOnStatus[resp.StatusCode] { // want `retry-after ignored: retry loop retries 503 but waits 1s, 2s, 3s without reading the Retry-After header`
			return resp, nil
		}
		resp.Body.Close()
		if err := c.wait(ctx, c.backoff*time.Duration(attempt+1)); err != nil { // want `no jitter: retry loop waits 1s, 2s, 3s with no random part`
			return nil, err
		}
	}
	return nil, errGaveUp
}

// DoSpread draws each wait and lets Retry-After raise it. Quiet.
func (c *Client) DoSpread(ctx context.Context, req *http.Request) (*http.Response, error) {
	for attempt := 0; attempt <= c.maxRetries; attempt++ {
		resp, err := c.hc.Do(req.WithContext(ctx))
		if err != nil {
			return nil, err
		}
		if !c.retryOnStatus[resp.StatusCode] {
			return resp, nil
		}
		d := c.backoff * time.Duration(attempt+1)
		d = d/2 + rand.N(d/2)
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && time.Duration(s)*time.Second > d {
			d = time.Duration(s) * time.Second
		}
		resp.Body.Close()
		if err := c.wait(ctx, d); err != nil {
			return nil, err
		}
	}
	return nil, errGaveUp
}

// RateClient retries 429 and 500 through a set its constructor writes.
type RateClient struct {
	hc         *http.Client
	retryCodes map[int]bool
}

// NewRate sets the set once.
func NewRate() *RateClient {
	return &RateClient{hc: http.DefaultClient, retryCodes: map[int]bool{429: true, 500: true}}
}

func spread(attempt int) time.Duration {
	d := time.Duration(attempt+1) * time.Second
	return d/2 + rand.N(d/2)
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// Do retries a 429 on its own backoff.
func (c *RateClient) Do(ctx context.Context, req *http.Request) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ {
		resp, err := c.hc.Do(req.WithContext(ctx))
		if err != nil {
			return nil, err
		}
		if !c.retryCodes[resp.StatusCode] { // want `retry-after ignored: retry loop retries 429 but`
			return resp, nil
		}
		resp.Body.Close()
		if err := sleep(ctx, spread(attempt)); err != nil {
			return nil, err
		}
	}
	return nil, errGaveUp
}

// DoHonour is Do with Retry-After raising the wait. Quiet.
func (c *RateClient) DoHonour(ctx context.Context, req *http.Request) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ {
		resp, err := c.hc.Do(req.WithContext(ctx))
		if err != nil {
			return nil, err
		}
		if !c.retryCodes[resp.StatusCode] {
			return resp, nil
		}
		d := spread(attempt)
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && time.Duration(s)*time.Second > d {
			d = time.Duration(s) * time.Second
		}
		resp.Body.Close()
		if err := sleep(ctx, d); err != nil {
			return nil, err
		}
	}
	return nil, errGaveUp
}

var retryStatuses = []int{http.StatusTooManyRequests, http.StatusBadGateway}

// Fetch retries the statuses of a package list, 429 among them.
func Fetch(ctx context.Context, hc *http.Client, req *http.Request) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ {
		resp, err := hc.Do(req.WithContext(ctx))
		if err != nil {
			return nil, err
		}
		if slices.Contains(retryStatuses, resp.StatusCode) { // want `retry-after ignored: retry loop retries 429 but`
			resp.Body.Close()
			if err := sleep(ctx, spread(attempt)); err != nil {
				return nil, err
			}
			continue
		}
		return resp, nil
	}
	return nil, errGaveUp
}

var serverErrors = []int{500, 502, 504}

// FetchServer retries 5xx codes whose answers carry no Retry-After. Quiet.
func FetchServer(ctx context.Context, hc *http.Client, req *http.Request) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ {
		resp, err := hc.Do(req.WithContext(ctx))
		if err != nil {
			return nil, err
		}
		if slices.Contains(serverErrors, resp.StatusCode) {
			resp.Body.Close()
			if err := sleep(ctx, spread(attempt)); err != nil {
				return nil, err
			}
			continue
		}
		return resp, nil
	}
	return nil, errGaveUp
}

var optionalCodes = map[int]bool{500: true}

// RetryRateLimits changes the set: what it holds is not known. Quiet.
func RetryRateLimits() { optionalCodes[429] = true }

// FetchOptional retries a set that may or may not hold 429. Quiet.
func FetchOptional(ctx context.Context, hc *http.Client, req *http.Request) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ {
		resp, err := hc.Do(req.WithContext(ctx))
		if err != nil {
			return nil, err
		}
		if !optionalCodes[resp.StatusCode] {
			return resp, nil
		}
		resp.Body.Close()
		if err := sleep(ctx, spread(attempt)); err != nil {
			return nil, err
		}
	}
	return nil, errGaveUp
}

var (
	rateLimited = map[int]bool{429: true}
	throttled   atomic.Int64
)

// FetchCounted counts 429s but retries 5xx only, and returns a 429. Quiet.
func FetchCounted(ctx context.Context, hc *http.Client, req *http.Request) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ {
		resp, err := hc.Do(req.WithContext(ctx))
		if err != nil {
			return nil, err
		}
		if rateLimited[resp.StatusCode] {
			throttled.Add(1)
		}
		if resp.StatusCode < 500 {
			return resp, nil
		}
		resp.Body.Close()
		if err := sleep(ctx, spread(attempt)); err != nil {
			return nil, err
		}
	}
	return nil, errGaveUp
}

// RecoverableError is retried by its caller after wait.
type RecoverableError struct {
	error
	wait time.Duration
}

func retryAfter(s string) time.Duration {
	if n, err := strconv.Atoi(s); err == nil {
		return time.Duration(n) * time.Second
	}
	return time.Second
}

var overloaded = map[int]bool{500: true, 503: true}

// Store retries the set, 503 in it, with a fixed wait and reads
// Retry-After only for 429.
func Store(hc *http.Client, req *http.Request) error {
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if overloaded[resp.StatusCode] { // want `retry-after read only on 429: Store reads Retry-After only when the status is 429 \(fieldset/fieldset.go:\d+\), but this branch retries 503 too`
		return RecoverableError{errors.New(resp.Status), time.Second}
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		return RecoverableError{errors.New(resp.Status), retryAfter(resp.Header.Get("Retry-After"))}
	}
	return nil
}

var brokenGateway = map[int]bool{500: true, 502: true}

// StoreGateway retries 500 and 502 only, which carry no Retry-After. Quiet.
func StoreGateway(hc *http.Client, req *http.Request) error {
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if brokenGateway[resp.StatusCode] {
		return RecoverableError{errors.New(resp.Status), time.Second}
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		return RecoverableError{errors.New(resp.Status), retryAfter(resp.Header.Get("Retry-After"))}
	}
	return nil
}
