package predhelper

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// A generated client's retrier asks a method about the whole response.
type retrier struct{ attempts int }

func (r *retrier) shouldRetry(response *http.Response) bool {
	return response.StatusCode == http.StatusTooManyRequests || // want `retry-after ignored: retry by recursion retries 429 but waits on its own backoff without reading the Retry-After header`
		response.StatusCode >= http.StatusInternalServerError
}

// run retries by recursion while shouldRetry says so.
func (r *retrier) run(send func(*http.Request) (*http.Response, error), req *http.Request, attempt int) (*http.Response, error) {
	if attempt >= r.attempts {
		return nil, nil
	}
	response, err := send(req)
	if err != nil {
		return nil, err
	}
	if r.shouldRetry(response) {
		response.Body.Close()
		d := time.Second<<attempt + time.Duration(rand.Int64N(int64(time.Second)))
		select {
		case <-req.Context().Done():
			return nil, req.Context().Err()
		case <-time.After(d):
		}
		return r.run(send, req, attempt+1)
	}
	return response, nil
}

// honouring reads the header the server sends.
type honouring struct{ attempts int }

func (h *honouring) shouldRetry(response *http.Response) bool {
	return response.StatusCode == http.StatusTooManyRequests || response.StatusCode >= 500
}

// Send waits what Retry-After asks: quiet.
func (h *honouring) Send(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for attempt := 0; attempt < h.attempts; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := c.Do(req)
		if err != nil {
			return nil, err
		}
		if !h.shouldRetry(resp) {
			return resp, nil
		}
		resp.Body.Close()
		d := time.Second<<attempt + time.Duration(rand.Int64N(int64(time.Second)))
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
			d = time.Duration(s) * time.Second
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(d):
		}
	}
	return nil, nil
}

func jobDone(response *http.Response) bool { return response.StatusCode == http.StatusTooManyRequests }

// Watch polls a job; a helper handed the response that says "done" on a
// 429 ends the loop: no retry of 429. Quiet.
func Watch(ctx context.Context, c *http.Client, url string) error {
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if jobDone(resp) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(rand.Int64N(int64(5 * time.Second)))):
		}
	}
}

// serverError is a classifier of the response alone.
func serverError(resp *http.Response) bool {
	return resp.StatusCode == http.StatusBadGateway || resp.StatusCode == http.StatusServiceUnavailable
}

// boundInCond: no bound in the for clause; the predicate and the count
// are tested together. A retry all the same, whose sleep ignores ctx.
func boundInCond(ctx context.Context, c *http.Client, url string, max int) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := c.Do(req)
		if err != nil {
			return nil, err
		}
		if serverError(resp) && attempt < max {
			resp.Body.Close()
			time.Sleep(rand.N(time.Second << attempt)) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after ctx is done`
			continue
		}
		return resp, nil
	}
}

// boundInCondSelect: the same retry waiting in a select on ctx. Quiet.
func boundInCondSelect(ctx context.Context, c *http.Client, url string, max int) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := c.Do(req)
		if err != nil {
			return nil, err
		}
		if serverError(resp) && attempt < max {
			resp.Body.Close()
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(rand.N(time.Second << attempt)):
			}
			continue
		}
		return resp, nil
	}
}
