// Package defercancel: a retry loop that defers the cancel of each
// attempt's context keeps every attempt's context and timer until the
// function returns; a cancel called when the attempt ends, an attempt run
// in a function literal of its own, and a loop that is no retry stay
// quiet.
package defercancel

import (
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"time"
)

func pause(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(rand.N(time.Second)):
		return nil
	}
}

func Get(parent context.Context, hc *http.Client, url string) ([]byte, error) {
	var err error
	for i := 0; i < 4; i++ {
		ctx, cancel := context.WithTimeout(parent, 5*time.Second)
		defer cancel() // want `defer cancel\(\) in retry loop: the context each attempt derives at defercancel/defercancel.go:28 \(context.WithTimeout\) is released only when Get returns, so every attempt's context and timer stay alive until the retry is over \(up to 4 at once\); call cancel\(\) when the attempt ends`
		req, rerr := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if rerr != nil {
			return nil, rerr
		}
		resp, derr := hc.Do(req)
		if derr == nil && resp.StatusCode < 500 {
			defer resp.Body.Close()
			return io.ReadAll(resp.Body)
		}
		if derr == nil {
			resp.Body.Close()
		}
		err = derr
		if werr := pause(parent); werr != nil {
			return nil, werr
		}
	}
	return nil, err
}

// The response is returned and read after the call: its context must
// outlive the attempt, so cancelling when the attempt ends is no fix (no
// deferred-cancel finding); the deferred cancel cuts the body off as the
// function returns (cancel-before-read).
func Open(parent context.Context, hc *http.Client, url string) (*http.Response, error) {
	var err error
	for i := 0; i < 4; i++ {
		ctx, cancel := context.WithTimeout(parent, 5*time.Second)
		defer cancel() // want `defer cancel\(\) cancels ctx, derived at .* returns what its .* made on that context: the caller reads the body or stream after the cancel`
		req, rerr := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if rerr != nil {
			return nil, rerr
		}
		resp, derr := hc.Do(req)
		if derr == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if derr == nil {
			resp.Body.Close()
		}
		err = derr
		if werr := pause(parent); werr != nil {
			return nil, werr
		}
	}
	return nil, err
}

// Quiet: the cancel runs when the attempt ends.
func Ping(parent context.Context, hc *http.Client, url string) error {
	var err error
	for i := 0; i < 4; i++ {
		ctx, cancel := context.WithTimeout(parent, 5*time.Second)
		req, rerr := http.NewRequestWithContext(ctx, http.MethodHead, url, nil)
		if rerr != nil {
			cancel()
			return rerr
		}
		resp, derr := hc.Do(req)
		cancel()
		if derr == nil {
			resp.Body.Close()
			return nil
		}
		err = derr
		if werr := pause(parent); werr != nil {
			return werr
		}
	}
	return err
}

// Quiet: each attempt is a function literal, whose defer runs when it
// returns.
func Put(parent context.Context, hc *http.Client, url string) error {
	var err error
	for i := 0; i < 4; i++ {
		err = func() error {
			ctx, cancel := context.WithTimeout(parent, 5*time.Second)
			defer cancel()
			req, rerr := http.NewRequestWithContext(ctx, http.MethodPut, url, nil)
			if rerr != nil {
				return rerr
			}
			resp, derr := hc.Do(req)
			if derr != nil {
				return derr
			}
			return resp.Body.Close()
		}()
		if err == nil {
			return nil
		}
		if werr := pause(parent); werr != nil {
			return werr
		}
	}
	return err
}

func attemptContext(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(parent)
	}
	return context.WithTimeout(parent, d)
}

// Call: a helper derives each attempt's context; the defer piles up the same.
func Call(parent context.Context, hc *http.Client, url string, perTry time.Duration) error {
	var err error
	for i := 0; i < 3; i++ {
		ctx, cancel := attemptContext(parent, perTry)
		defer cancel() // want `defer cancel\(\) in retry loop: the context each attempt derives at defercancel/defercancel.go:\d+ \(attemptContext\) is released only when Call returns`
		req, rerr := http.NewRequestWithContext(ctx, http.MethodDelete, url, nil)
		if rerr != nil {
			return rerr
		}
		resp, derr := hc.Do(req)
		if derr == nil {
			resp.Body.Close()
			return nil
		}
		err = derr
		if werr := pause(parent); werr != nil {
			return werr
		}
	}
	return err
}

// cancelBody cancels the attempt's context when the caller closes it.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b cancelBody) Close() error {
	defer b.cancel()
	return b.ReadCloser.Close()
}

// Quiet: the cancel is handed to the body, which the caller closes.
func OpenHanded(parent context.Context, hc *http.Client, url string) (*http.Response, error) {
	var err error
	for i := 0; i < 4; i++ {
		ctx, cancel := context.WithTimeout(parent, 5*time.Second)
		req, rerr := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if rerr != nil {
			cancel()
			return nil, rerr
		}
		resp, derr := hc.Do(req)
		if derr == nil && resp.StatusCode < 500 {
			resp.Body = cancelBody{resp.Body, cancel}
			return resp, nil
		}
		if derr == nil {
			resp.Body.Close()
		}
		cancel()
		err = derr
		if werr := pause(parent); werr != nil {
			return nil, werr
		}
	}
	return nil, err
}
