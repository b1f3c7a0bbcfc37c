package defaults

import (
	"context"
	"math"
	"math/rand/v2"
	"net/http"
	"time"
)

// A wait computed by a function the client keeps in a field: the
// constructor's default is the schedule every client gets unless its
// caller hands it another function.

type BackoffFunc func(retries int) time.Duration

// Exponential returns a backoff without a random part.
func Exponential(b float64, d time.Duration) BackoffFunc {
	return func(retries int) time.Duration {
		return time.Duration(math.Pow(b, float64(retries))) * d
	}
}

// Jittered returns a backoff with one.
func Jittered(d time.Duration) BackoffFunc {
	return func(retries int) time.Duration {
		return d + time.Duration(rand.Int64N(int64(d)))
	}
}

type APIClient struct {
	hc          *http.Client
	backoffFunc BackoffFunc
}

type APIOption func(*APIClient)

// WithBackoff hands in the caller's function: not a default.
func WithBackoff(f BackoffFunc) APIOption {
	return func(c *APIClient) { c.backoffFunc = f }
}

func NewAPIClient(opts ...APIOption) *APIClient {
	c := &APIClient{hc: http.DefaultClient, backoffFunc: Exponential(2, 500*time.Millisecond)} // want `no jitter: retry loop waits 500ms, 1s, 2s, \.\.\. by default \(the function set at defaults/funcfield.go:44, which the caller may replace\) \(unbounded attempts\) with no random part`
	for _, o := range opts {
		o(c)
	}
	return c
}

func (c *APIClient) backoff(ctx context.Context, retries int) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(c.backoffFunc(retries)):
		return nil
	}
}

// Do retries a gateway's 502 until the context ends, at the default's waits.
func (c *APIClient) Do(ctx context.Context, req *http.Request) (*http.Response, error) {
	var retries int
	for {
		resp, err := c.hc.Do(req.WithContext(ctx))
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusBadGateway {
			return resp, nil
		}
		resp.Body.Close()
		if err := c.backoff(ctx, retries); err != nil {
			return nil, err
		}
		retries++
	}
}

// JitterClient's default has a random part: quiet.
type JitterClient struct {
	hc   *http.Client
	wait BackoffFunc
}

func NewJitterClient() *JitterClient {
	return &JitterClient{hc: http.DefaultClient, wait: Jittered(time.Second)}
}

func (c *JitterClient) Do(ctx context.Context, req *http.Request) (*http.Response, error) {
	for try := 0; try < 4; try++ {
		resp, err := c.hc.Do(req.WithContext(ctx))
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if err == nil {
			resp.Body.Close()
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(c.wait(try)):
		}
	}
	return nil, context.DeadlineExceeded
}

// TwoDefaults: two constructors give the field different functions, so
// which schedule runs is the caller's choice of constructor: quiet.
type TwoDefaults struct {
	hc   *http.Client
	wait BackoffFunc
}

func NewQuick() *TwoDefaults {
	return &TwoDefaults{hc: http.DefaultClient, wait: Exponential(2, 100*time.Millisecond)}
}

func NewSlow2() *TwoDefaults {
	return &TwoDefaults{hc: http.DefaultClient, wait: Exponential(3, time.Second)}
}

func (c *TwoDefaults) Do(ctx context.Context, req *http.Request) (*http.Response, error) {
	for try := 0; try < 4; try++ {
		resp, err := c.hc.Do(req.WithContext(ctx))
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if err == nil {
			resp.Body.Close()
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(c.wait(try)):
		}
	}
	return nil, context.DeadlineExceeded
}

// NoDefault: the field is only ever the caller's function: quiet.
type NoDefault struct {
	hc   *http.Client
	wait BackoffFunc
}

func NewNoDefault(wait BackoffFunc) *NoDefault {
	return &NoDefault{hc: http.DefaultClient, wait: wait}
}

func (c *NoDefault) Do(ctx context.Context, req *http.Request) (*http.Response, error) {
	for try := 0; try < 4; try++ {
		resp, err := c.hc.Do(req.WithContext(ctx))
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if err == nil {
			resp.Body.Close()
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(c.wait(try)):
		}
	}
	return nil, context.DeadlineExceeded
}
