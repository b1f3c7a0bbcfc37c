package sdkloops

import (
	"context"
	"errors"
	"io"
	"math/rand"
	"net/http"
	"time"
)

// apiError is the API's own error, decoded from an error response.
type apiError struct {
	Code string
}

func (e *apiError) Error() string { return e.Code }

type backend struct {
	c          *http.Client
	maxRetries int
}

func (b *backend) toError(res *http.Response, body []byte) error {
	return &apiError{Code: string(body)}
}

func (b *backend) sleepTime(n int) time.Duration {
	d := 500 * time.Millisecond * time.Duration(1+n*n)
	if d > 5*time.Second {
		d = 5 * time.Second
	}
	return d - time.Duration(rand.Int63n(int64(d/4)))
}

// shouldRetry retries every error that is not the API's own, so also a
// context's.
func (b *backend) shouldRetry(err error, req *http.Request, resp *http.Response, numRetries int) bool {
	if numRetries >= b.maxRetries {
		return false
	}
	apiErr, _ := err.(*apiError)
	if apiErr == nil && err != nil { // want `retries a cancelled/expired context's error: sdkloops.\(\*backend\).shouldRetry answers retry for context.Canceled, so when req.Context\(\) is done the retry loop sends the request again instead of returning`
		return true
	}
	if resp.Header.Get("Should-Retry") == "false" {
		return false
	}
	if resp.Header.Get("Should-Retry") == "true" {
		return true
	}
	if resp.StatusCode == http.StatusConflict {
		return true
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		if apiErr != nil && apiErr.Code == "lock_timeout" {
			return true // a lock timeout, not the rate limit: no Retry-After to read
		}
	}
	return resp.StatusCode >= http.StatusInternalServerError
}

// do sends a request it was handed: its Context() is the caller's, and the
// sleep between attempts ignores it. The body is read and turned into an
// error in the same turn, which is no pagination.
func (b *backend) do(req *http.Request) error {
	var err error
	var res *http.Response
	var body []byte
	for retry := 0; ; {
		res, err = b.c.Do(req)
		if err == nil {
			body, err = io.ReadAll(res.Body)
			res.Body.Close()
		}
		if err == nil && res.StatusCode >= 400 {
			err = b.toError(res, body)
		}
		if !b.shouldRetry(err, req, res, retry) {
			break
		}
		d := b.sleepTime(retry)
		retry++
		time.Sleep(d) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after req.Context\(\) is done; wait in a select on req.Context\(\).Done\(\) and a timer`
	}
	return err
}

// shouldRetryFixed gives up on a context's error first.
func (b *backend) shouldRetryFixed(err error, resp *http.Response, numRetries int) bool {
	if numRetries >= b.maxRetries {
		return false
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if err != nil {
		return true
	}
	return resp.StatusCode >= http.StatusInternalServerError
}

// doFixed: ctx errors are not retried and the wait is a select.
func (b *backend) doFixed(req *http.Request) error {
	var err error
	for retry := 0; ; retry++ {
		var res *http.Response
		res, err = b.c.Do(req)
		if !b.shouldRetryFixed(err, res, retry) {
			break
		}
		select {
		case <-req.Context().Done():
			return req.Context().Err()
		case <-time.After(b.sleepTime(retry)):
		}
	}
	return err
}

// netErr is a classifier that asks the error itself (a net.Error's
// Timeout): what it answers for a context's error is not known, so the
// loop is quiet about it.
func netErr(err error, resp *http.Response) bool {
	var ne interface{ Timeout() bool }
	if errors.As(err, &ne) {
		return ne.Timeout()
	}
	if err != nil {
		return false
	}
	return resp.StatusCode >= http.StatusInternalServerError
}

func (b *backend) doNetErr(ctx context.Context, url string) error {
	var err error
	for retry := 0; retry < 4; retry++ {
		var req *http.Request
		req, err = http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		var res *http.Response
		res, err = b.c.Do(req)
		if !netErr(err, res) {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(b.sleepTime(retry)):
		}
	}
	return err
}

// A request built here without a context carries Background: its sleep
// ignores nothing, and retrying every error cannot retry a cancellation.
func (b *backend) doBackground(url string) error {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	for retry := 0; ; {
		var res *http.Response
		res, err = b.c.Do(req)
		if !b.shouldRetry(err, req, res, retry) {
			break
		}
		retry++
		time.Sleep(b.sleepTime(retry))
	}
	return err
}

// A task poll that builds its request in each turn from the caller's
// context and reports "not yet" as a sentinel error: the request is not one
// the loop was handed, so it is not read as the wait's context.
var errNotYet = errors.New("not yet")

func (b *backend) pollTask(parent *http.Request, url string) error {
	for {
		err := func() error {
			req, err := http.NewRequestWithContext(parent.Context(), http.MethodGet, url, nil)
			if err != nil {
				return err
			}
			res, err := b.c.Do(req)
			if err != nil {
				return err
			}
			defer res.Body.Close()
			if res.StatusCode == http.StatusAccepted {
				time.Sleep(3 * time.Second)
				return errNotYet
			}
			return nil
		}()
		if errors.Is(err, errNotYet) {
			continue
		}
		return err
	}
}
