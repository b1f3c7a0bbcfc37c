// Package dropsel: a retrying RoundTripper whose wait is a select with a
// clause that returns the last response; on the way to the next attempt
// that clause is not taken, so the failed attempt's body stays open.
package dropsel

import (
	"net/http"
	"time"
)

type retrying struct {
	next http.RoundTripper
	max  int
}

func (t *retrying) RoundTrip(req *http.Request) (*http.Response, error) {
	attempts := 0
	for {
		attempts++
		resp, err := t.next.RoundTrip(req.Clone(req.Context()))
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if attempts >= t.max {
			return resp, err
		}
		select {
		case <-req.Context().Done():
			return resp, err
		case <-time.After(time.Duration(attempts) * 200 * time.Millisecond):
			continue // want `retry loop at .* continues here without closing resp.Body`
		}
	}
}

// Quiet: the clause that goes round closes the body first.
func (t *retrying) closing(req *http.Request) (*http.Response, error) {
	attempts := 0
	for {
		attempts++
		resp, err := t.next.RoundTrip(req.Clone(req.Context()))
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if attempts >= t.max {
			return resp, err
		}
		select {
		case <-req.Context().Done():
			return resp, err
		case <-time.After(time.Duration(attempts) * 200 * time.Millisecond):
			if resp != nil {
				resp.Body.Close()
			}
			continue
		}
	}
}
