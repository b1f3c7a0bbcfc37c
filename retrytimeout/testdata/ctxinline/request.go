package ctxinline

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// A failover client: the caller's context travels in the request it is
// handed, and only context.Canceled leaves, so a request whose deadline
// passed is sent again to the next node, after an uncancellable sleep.
type nodes struct {
	hc       *http.Client
	interval time.Duration
	tries    int
}

func (n *nodes) Do(req *http.Request) (*http.Response, error) {
	var last error
	for i := 0; i < n.tries; i++ {
		req.Header.Set("X-Attempt", http.StatusText(i))
		resp, err := n.hc.Do(req)
		if errors.Is(err, context.Canceled) { // want `retries a cancelled/expired context's error: when n.hc.Do fails with context.DeadlineExceeded the retry loop goes round again \(its tests of the error, errors.Is\(err, context.Canceled\), leave only on other classes\), so when req.Context\(\) is done it calls n.hc.Do again`
			return nil, err
		}
		if err != nil || resp.StatusCode >= 500 {
			if resp != nil {
				resp.Body.Close()
			}
			last = err
			time.Sleep(n.interval) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after req.Context\(\) is done`
			continue
		}
		return resp, nil
	}
	return nil, last
}

// Both of the context's errors leave: quiet.
func (n *nodes) DoBoth(req *http.Request) (*http.Response, error) {
	var last error
	for i := 0; i < n.tries; i++ {
		resp, err := n.hc.Do(req)
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		if err != nil || resp.StatusCode >= 500 {
			if resp != nil {
				resp.Body.Close()
			}
			last = err
			time.Sleep(n.interval) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after req.Context\(\) is done`
			continue
		}
		return resp, nil
	}
	return nil, last
}

// The request's context is tested before each send: quiet.
func (n *nodes) DoChecked(req *http.Request) (*http.Response, error) {
	var last error
	for i := 0; i < n.tries; i++ {
		if err := req.Context().Err(); err != nil {
			return nil, err
		}
		resp, err := n.hc.Do(req)
		if errors.Is(err, context.Canceled) {
			return nil, err
		}
		if err != nil || resp.StatusCode >= 500 {
			if resp != nil {
				resp.Body.Close()
			}
			last = err
			time.Sleep(n.interval) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after req.Context\(\) is done`
			continue
		}
		return resp, nil
	}
	return nil, last
}
