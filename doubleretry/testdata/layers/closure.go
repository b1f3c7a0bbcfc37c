package layers

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"time"
)

// ---- an operation held in a local closure ----

func pauseFor(ctx context.Context, i int) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(rand.N(time.Second << i)):
		return nil
	}
}

var errServer = errors.New("server error")

// fetch makes up to 3 attempts of a GET.
func fetch(ctx context.Context, url string) error {
	var err error
	for i := 0; i < 3; i++ {
		req, rerr := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if rerr != nil {
			return rerr
		}
		resp, derr := http.DefaultClient.Do(req)
		if derr == nil && resp.StatusCode < 500 {
			return resp.Body.Close()
		}
		if derr == nil {
			resp.Body.Close()
		}
		err = errServer
		if werr := pauseFor(ctx, i); werr != nil {
			return werr
		}
	}
	return err
}

// Poll's loop calls the closure op, which runs fetch: 4 x 3 requests.
func Poll(ctx context.Context, url string) error {
	op := func() error { return fetch(ctx, url) }
	var err error
	for i := 0; i < 4; i++ { // want `retry loop \(4 attempts\) at layers/closure.go:51 wraps retry loop \(3 attempts\) at layers/closure.go:27 \(through layers.fetch\): up to 12 requests per call`
		if err = op(); err == nil {
			return nil
		}
		if werr := pauseFor(ctx, i); werr != nil {
			return werr
		}
	}
	return err
}

// Report: quiet, the closure that runs fetch is called once, after the
// loop succeeded.
func Report(ctx context.Context, url string, ping func() error) error {
	done := func() error { return fetch(ctx, url) }
	var err error
	for i := 0; i < 4; i++ {
		if err = ping(); err == nil {
			return done()
		}
		if werr := pauseFor(ctx, i); werr != nil {
			return werr
		}
	}
	return err
}

// Swap: quiet, op is given two closures and which one runs is not read
// (the model follows a variable given one value).
func Swap(ctx context.Context, url string, cached bool) error {
	op := func() error { return nil }
	if !cached {
		op = func() error { return fetch(ctx, url) }
	}
	var err error
	for i := 0; i < 4; i++ {
		if err = op(); err == nil {
			return nil
		}
		if werr := pauseFor(ctx, i); werr != nil {
			return werr
		}
	}
	return err
}
