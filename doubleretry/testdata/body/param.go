package body

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"time"
)

// A retry that sends again the request it is handed: its callers build it.

func sendWithRetries(hc *http.Client, req *http.Request) (*http.Response, error) {
	var lastErr error
	for i := 0; i < 3; i++ {
		resp, err := hc.Do(req) // want `the POST request built at body/param.go:\d+ is sent again by the retry loop at body/param.go:\d+ with the body the first attempt read to its end: each of its 2 retries sends an empty body`
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if err == nil {
			resp.Body.Close()
			lastErr = errors.New(resp.Status)
		} else {
			lastErr = err
		}
		time.Sleep(time.Second)
	}
	return nil, lastErr
}

// Post builds the request once, in one of two branches, and hands it on.
func Post(ctx context.Context, hc *http.Client, url string, payload []byte) error {
	var req *http.Request
	var err error
	if payload != nil {
		req, err = http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
	} else {
		req, err = http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	}
	if err != nil {
		return err
	}
	resp, err := sendWithRetries(hc, req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// A client wrapper shaped like http.Client.Do: every caller's request
// comes through it, POST bodies too.

// Doer is what the wrapper sends through.
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// Retrying retries the requests its callers hand to Do.
type Retrying struct{ next Doer }

// Do sends r, retrying 5xx.
func (c *Retrying) Do(r *http.Request) (*http.Response, error) { return c.retry(r) }

func (c *Retrying) retry(r *http.Request) (*http.Response, error) {
	var resp *http.Response
	var err error
	for i := 0; i < 4; i++ {
		resp, err = c.next.Do(r) // want `the request handed to body.\(\*Retrying\).Do \(a client's Do, POST and PUT bodies too\) is sent again by the retry loop at body/param.go:\d+ .*each of its 3 retries sends an empty body`
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if resp != nil {
			resp.Body.Close()
		}
		time.Sleep(500 * time.Millisecond)
	}
	return resp, err
}

// Lookalike: the callers hand the helper GETs only.
func fetchWithRetries(hc *http.Client, req *http.Request) (*http.Response, error) {
	var lastErr error
	for i := 0; i < 3; i++ {
		resp, err := hc.Do(req)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if err == nil {
			resp.Body.Close()
			lastErr = errors.New(resp.Status)
		} else {
			lastErr = err
		}
		time.Sleep(time.Second)
	}
	return nil, lastErr
}

// Fetch sends a GET through the retrying helper.
func Fetch(ctx context.Context, hc *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := fetchWithRetries(hc, req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// Lookalike: a client wrapper that gives each attempt the body back from
// GetBody.
type Rewinding struct{ next Doer }

// Do sends r, retrying 5xx with its body restored.
func (c *Rewinding) Do(r *http.Request) (*http.Response, error) {
	var resp *http.Response
	var err error
	for i := 0; i < 4; i++ {
		if i > 0 && r.GetBody != nil {
			body, gerr := r.GetBody()
			if gerr != nil {
				return nil, gerr
			}
			r.Body = body
		}
		resp, err = c.next.Do(r)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if resp != nil {
			resp.Body.Close()
		}
		time.Sleep(500 * time.Millisecond)
	}
	return resp, err
}

// Lookalike: a wrapper that retries only requests without a body.
type GetOnly struct{ next Doer }

// Do sends r once when it has a body, else retries it.
func (c *GetOnly) Do(r *http.Request) (*http.Response, error) {
	if r.Body != nil && r.Body != http.NoBody {
		return c.next.Do(r)
	}
	var resp *http.Response
	var err error
	for i := 0; i < 4; i++ {
		resp, err = c.next.Do(r)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if resp != nil {
			resp.Body.Close()
		}
		time.Sleep(500 * time.Millisecond)
	}
	return resp, err
}
