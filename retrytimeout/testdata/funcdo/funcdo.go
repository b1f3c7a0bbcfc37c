// Package funcdo: a retry whose operation is a func value shaped like
// http.Client.Do (a handler chain: hc.Do wrapped by middlewares, as the
// Stainless SDKs build it) sends a request, so the retry is remote and its
// fixed waits synchronise clients; the same loop around a func value of
// another shape, computed in the process, is no remote retry.
package funcdo

import (
	"context"
	"errors"
	"net/http"
	"time"
)

type Middleware func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error)

func chain(hc *http.Client, mws []Middleware) func(*http.Request) (*http.Response, error) {
	handler := hc.Do
	for i := len(mws) - 1; i >= 0; i-- {
		mw, next := mws[i], handler
		handler = func(req *http.Request) (*http.Response, error) { return mw(req, next) }
	}
	return handler
}

func Send(ctx context.Context, hc *http.Client, mws []Middleware, req *http.Request) (*http.Response, error) {
	handler := chain(hc, mws)
	var resp *http.Response
	var err error
	for i := 0; i < 4; i++ {
		resp, err = handler(req.Clone(ctx))
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if err == nil {
			resp.Body.Close()
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(2 * time.Second): // want `no jitter: retry loop waits 2s, 2s, 2s with no random part`
		}
	}
	return resp, err
}

var errBusy = errors.New("busy")

// Quiet: the func value renders a template; nothing leaves the process.
func Render(ctx context.Context, render func(string) (string, error), name string) (string, error) {
	var out string
	var err error
	for i := 0; i < 4; i++ {
		out, err = render(name)
		if err == nil || !errors.Is(err, errBusy) {
			return out, err
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
	return out, err
}
