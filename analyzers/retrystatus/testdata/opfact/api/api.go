// Package api is a project's client of a remote API: its methods make the
// request and turn the status into an error or an answer of its own type.
package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// StatusError is the failure of a call, with its status.
type StatusError struct {
	Status int
	Body   string
}

func (e *StatusError) Error() string { return fmt.Sprintf("status %d: %s", e.Status, e.Body) }

// ErrNotFound is what Find returns for 404.
var ErrNotFound = errors.New("not found")

// Client talks to the API.
type Client struct {
	HC   *http.Client
	Base string
}

// send makes one request and hands back its status and body.
func (c *Client) send(ctx context.Context, method, path string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.Base+path, nil)
	if err != nil {
		return 0, nil, err
	}
	resp, err := c.HC.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// Fetch fails with a *StatusError for every status from 300 up: the
// request is made by send, one call down.
func (c *Client) Fetch(ctx context.Context, path string) ([]byte, error) { // want Fetch:`^error for every failing status of api.\(\*Client\).Fetch$`
	code, b, err := c.send(ctx, http.MethodGet, path)
	if err != nil {
		return nil, err
	}
	if code >= 300 {
		return nil, &StatusError{Status: code, Body: string(b)}
	}
	return b, nil
}

// Find tells 404 apart: it names a failing status, so it classifies.
func (c *Client) Find(ctx context.Context, path string) ([]byte, error) {
	code, b, err := c.send(ctx, http.MethodGet, path)
	if err != nil {
		return nil, err
	}
	if code == http.StatusNotFound {
		return nil, ErrNotFound
	}
	if code != http.StatusOK {
		return nil, &StatusError{Status: code}
	}
	return b, nil
}

// Answer is the client's own response: the status and the body.
type Answer struct {
	Code int
	Body []byte
}

// Raw returns the answer whatever its status.
func (c *Client) Raw(ctx context.Context, path string) (*Answer, error) {
	code, b, err := c.send(ctx, http.MethodGet, path)
	if err != nil {
		return nil, err
	}
	return &Answer{Code: code, Body: b}, nil
}

// Page lists one page of items; next is "" on the last.
func (c *Client) Page(ctx context.Context, cursor string) (items []string, next string, err error) { // want Page:`^error for every failing status of api.\(\*Client\).Fetch$`
	b, err := c.Fetch(ctx, "/items?cursor="+cursor)
	if err != nil {
		return nil, "", err
	}
	return []string{string(b)}, "", nil
}

func (c *Client) do(req *http.Request) (*http.Response, error) { return c.HC.Do(req) }

func ok2xx(code int) bool { return code/100 == 2 }

// Update makes the request through do and asks a predicate about the
// status; it reads a header of the answer (resp.Header.Get is no request).
func (c *Client) Update(ctx context.Context, path string) (string, error) { // want Update:`^error for every failing status of api.\(\*Client\).Update$`
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, c.Base+path, nil)
	if err != nil {
		return "", err
	}
	resp, err := c.do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if !ok2xx(resp.StatusCode) {
		return "", &StatusError{Status: resp.StatusCode}
	}
	return resp.Header.Get("ETag"), nil
}
