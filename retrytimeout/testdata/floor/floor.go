// Package floor: an attempt-only retry whose waits total at most 1s is
// bound enough by its attempt count; above that it is reported. Each
// retry here has the caller's ctx in scope and ignores it.
package floor

import (
	"context"
	"net/http"
	"time"
)

type API struct{ retryBackoff time.Duration }

func NewAPI() *API { return &API{retryBackoff: 100 * time.Millisecond} }

// withRetry waits 100ms, 200ms, 300ms, 400ms between its attempts: 1s,
// quiet (and 500ms after the last failure, which the floor does not read).
func (a *API) withRetry(ctx context.Context, f func(context.Context) (*http.Response, error)) (resp *http.Response, err error) {
	for i := 0; i < 5; i++ {
		resp, err = f(ctx)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode < 500 {
			break
		}
		time.Sleep(a.retryBackoff * (time.Duration(i) + 1))
	}
	return resp, err
}

// slowRetry waits 500ms four times, the last after the last failure: 2s
// in all.
func slowRetry(ctx context.Context, f func(context.Context) (*http.Response, error)) (resp *http.Response, err error) {
	for i := 0; i < 4; i++ {
		resp, err = f(ctx)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode < 500 {
			break
		}
		time.Sleep(500 * time.Millisecond) // want `wait ignores cancellation: .*also attempt-only: retry loop makes 4 attempts with waits 500ms, 500ms, 500ms, then 500ms after the last failure, and nothing bounds it in time: worst case 2s of waiting`
	}
	return resp, err
}

const connectInterval = time.Second

// connect waits the same constant second after each of 20 attempts: the
// model lists the first few waits, and the total is still exact (20s).
func connect(ctx context.Context, f func(context.Context) (*http.Response, error)) (resp *http.Response, err error) {
	for i := 0; i < 20; i++ {
		resp, err = f(ctx)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		time.Sleep(connectInterval) // want `wait ignores cancellation: .*also attempt-only: retry loop makes 20 attempts and nothing bounds it in time: 20 waits of 1s \(one after the last failure\) add up to 20s, whatever the caller's deadline`
	}
	return resp, err
}

// backoffAfter waits 1s for eight attempts and then 5s: not one constant
// wait, so not the exact total of one; the choices bound it.
func backoffAfter(ctx context.Context, f func(context.Context) (*http.Response, error)) (resp *http.Response, err error) {
	for i := 0; i < 20; i++ {
		resp, err = f(ctx)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		d := time.Second
		if i >= 8 {
			d = 5 * time.Second
		}
		time.Sleep(d) // want `wait ignores cancellation: .*also attempt-only: retry loop makes 20 attempts, each wait 1s or 5s, and nothing bounds it in time: up to 100s of waiting`
	}
	return resp, err
}

const pollInterval = 100 * time.Millisecond

// shortConnect waits the same constant 100ms between 10 attempts: the
// schedule is laid out as for connect, and its 900ms stay under the floor.
func shortConnect(ctx context.Context, f func(context.Context) (*http.Response, error)) (resp *http.Response, err error) {
	for i := 0; i < 10; i++ {
		resp, err = f(ctx)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		time.Sleep(pollInterval)
	}
	return resp, err
}

// neqConnect counts its attempts with !=: stepping by one from 0, it stops
// at 6 as i < 6 would.
func neqConnect(ctx context.Context, f func(context.Context) (*http.Response, error)) (resp *http.Response, err error) {
	for i := 0; i != 6; i++ {
		resp, err = f(ctx)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		time.Sleep(time.Second << i) // want `wait ignores cancellation: .*also attempt-only: retry loop makes 6 attempts with waits 1s, 2s, 4s, 8s, 16s, then 32s after the last failure, and nothing bounds it in time: worst case 63s of waiting`
	}
	return resp, err
}
