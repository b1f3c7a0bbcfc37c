// Package api is a client whose error carries the HTTP status, with
// methods that classify it; package app retries through them.
package api

import (
	"context"
	"fmt"
	"net/http"
)

// Error is a failed call's status.
type Error struct {
	Code int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("api: %d %s", e.Code, e.Msg) }

// Temporary lists two 5xx codes.
func (e *Error) Temporary() bool { // want Temporary:`^status classifier: true for 502,503; lists 502,503$`
	return e.Code == http.StatusBadGateway || e.Code == http.StatusServiceUnavailable
}

// Retryable covers the range.
func (e *Error) Retryable() bool { // want Retryable:`^status classifier: true for 429,500,.*; lists 429$`
	return e.Code == http.StatusTooManyRequests || e.Code >= 500
}

// Client calls the API.
type Client struct{ HC *http.Client }

// Get fails with an *Error for every status but 200.
func (c *Client) Get(ctx context.Context, url string) error { // want Get:`^error for every failing status of http.Client.Do in api.\(\*Client\).Get$`
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := c.HC.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return &Error{Code: resp.StatusCode, Msg: resp.Status}
	}
	return nil
}
