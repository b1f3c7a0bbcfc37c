package cancelsrc

import (
	"context"
	"math/rand"
	"net/http"
	"time"
)

// backoffTransport's pause helper computes its own wait from the attempt
// (the interval doubled, jittered) and sleeps it: it is handed the
// request's context and ignores it.
type backoffTransport struct {
	next     http.RoundTripper
	limit    int
	interval time.Duration
	jitter   float64
}

func (t *backoffTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			t.pause(ctx, attempt) // want `wait ignores cancellation: sleep helper cancelsrc.\(\*backoffTransport\).pause in retry loop keeps waiting after ctx is done`
		}
		resp, err := t.next.RoundTrip(req)
		if attempt >= t.limit || err == nil && resp.StatusCode < 500 {
			return resp, err
		}
		if resp != nil {
			resp.Body.Close()
		}
	}
}

func (t *backoffTransport) pause(ctx context.Context, attempt int) {
	d := t.interval << (attempt - 1)
	d += time.Duration(float64(d) * t.jitter * (1 - 2*rand.Float64()))
	time.Sleep(d)
}

// selectTransport's helper computes its wait the same way and ends it
// when the context does: quiet.
type selectTransport struct {
	next     http.RoundTripper
	limit    int
	interval time.Duration
}

func (t *selectTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			if err := t.pause(ctx, attempt); err != nil {
				return nil, err
			}
		}
		resp, err := t.next.RoundTrip(req)
		if attempt >= t.limit || err == nil && resp.StatusCode < 500 {
			return resp, err
		}
		if resp != nil {
			resp.Body.Close()
		}
	}
}

func (t *selectTransport) pause(ctx context.Context, attempt int) error {
	d := t.interval << (attempt - 1)
	d += time.Duration(rand.Int63n(int64(d) + 1))
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}
