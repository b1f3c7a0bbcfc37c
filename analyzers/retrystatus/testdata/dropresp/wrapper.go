package dropresp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httputil"
	"time"
)

// api sends through a client of its own shape, behind a wrapper.
type api struct {
	hc interface {
		Do(*http.Request) (*http.Response, error)
	}
	token string
	last  *http.Response
}

// send sets the auth header, keeps the exchange for debugging and hands
// back the response as it came: its caller holds the connection.
func (a *api) send(req *http.Request) (resp *http.Response, err error) {
	defer func() { a.last = resp }()
	req.Header.Set("Authorization", "Bearer "+a.token)
	resp, err = a.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("calling the API: %w", err)
	}
	return resp, nil
}

// retried goes one wrapper further up.
func (a *api) retried(req *http.Request) (*http.Response, error) {
	return a.send(req)
}

func (a *api) call(ctx context.Context, url string) (*http.Response, error) {
	var resp *http.Response
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		req, rerr := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if rerr != nil {
			return nil, rerr
		}
		resp, err = a.retried(req)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if werr := pause(ctx, time.Second); werr != nil { // want `retry loop at .* goes round again here without closing resp.Body: .* up to 2 connections`
			return nil, werr
		}
	}
	return resp, err
}

// sendBuffered reads the body into memory and hands back a response
// whose body holds no connection.
func (a *api) sendBuffered(req *http.Request) (*http.Response, error) {
	resp, err := a.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return resp, nil
}

// Quiet: the wrapper buffered the body, so nothing is left to close.
func (a *api) callBuffered(ctx context.Context, url string) (*http.Response, error) {
	var resp *http.Response
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		req, rerr := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if rerr != nil {
			return nil, rerr
		}
		resp, err = a.sendBuffered(req)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if werr := pause(ctx, time.Second); werr != nil {
			return nil, werr
		}
	}
	return resp, err
}

// The wait is a select whose every case leaves, so the loop body never
// falls off its end: the one exit is the continue.
func (a *api) callSelect(ctx context.Context, url string) (*http.Response, error) {
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := a.send(req)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		select {
		case <-time.After(time.Second):
			continue // want `retry loop at .* continues here without closing resp.Body`
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// A debug dump reads the body and puts a buffered copy back; a log line
// formats the response: neither closes it.
func (a *api) callDumped(ctx context.Context, url string, debug bool) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := a.hc.Do(req)
		if err != nil {
			return nil, err
		}
		if debug {
			if dump, derr := httputil.DumpResponse(resp, true); derr == nil {
				log.Printf("response %d: %s", attempt, dump)
			}
			fmt.Println(resp.Status, resp)
		}
		if resp.StatusCode != http.StatusServiceUnavailable || attempt == 3 {
			return resp, nil
		}
		if err := pause(ctx, time.Second); err != nil { // want `retry loop at .* goes round again here without closing resp.Body: .* up to 3 connections`
			return nil, err
		}
	}
}
