// Package local holds readiness polls of a proxy or daemon that a test
// harness (or the program itself) just started on this machine: nothing
// remote is retried, so there is no herd to spread. Beside them, retried
// requests to a host the caller names.
package local

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"
)

var errNeverUp = errors.New("never came up")

// WaitProxy polls the proxy the harness started on a local port: quiet.
func WaitProxy(ctx context.Context, port int) error {
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for i := 0; i < 20; i++ {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
	return errNeverUp
}

const daemonURL = "http://localhost:8631/ready"

// WaitDaemon polls a daemon on localhost through a request: quiet.
func WaitDaemon(ctx context.Context, c *http.Client) error {
	for i := 0; i < 10; i++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, daemonURL, nil)
		if err != nil {
			return err
		}
		resp, err := c.Do(req)
		if err == nil {
			resp.Body.Close()
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return errNeverUp
}

// WaitIPv6 polls [::1] built with net.JoinHostPort: quiet.
func WaitIPv6(ctx context.Context, port int) error {
	u := "http://" + net.JoinHostPort("::1", strconv.Itoa(port)) + "/"
	for i := 0; i < 10; i++ {
		resp, err := http.Get(u)
		if err == nil {
			resp.Body.Close()
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return errNeverUp
}

// FetchHost retries a request to whatever host the caller names: it may be
// a shared service, so the waits want jitter. (A health check of it would
// be a readiness poll, which the model does not count as a retry.)
func FetchHost(ctx context.Context, host string) error {
	for i := 0; i < 10; i++ {
		resp, err := http.Get("http://" + host + "/v1/items")
		if err == nil {
			resp.Body.Close()
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second): // want `no jitter: retry loop waits 1s, 1s, 1s, \.\.\. with no random part`
		}
	}
	return errNeverUp
}

// FetchLookalike names localhost only in a path segment: the host is a
// remote one.
func FetchLookalike(ctx context.Context) error {
	for i := 0; i < 10; i++ {
		resp, err := http.Get("https://status.example.com/localhost/items")
		if err == nil {
			resp.Body.Close()
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second): // want `no jitter: retry loop waits 1s`
		}
	}
	return errNeverUp
}
