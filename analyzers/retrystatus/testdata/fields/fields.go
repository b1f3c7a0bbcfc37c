// Package fields holds 5xx sets kept in a struct field that a
// constructor sets once, beside fields that may hold anything.
package fields

import (
	"context"
	"net/http"
	"time"
)

type client struct {
	hc            *http.Client
	retryOnStatus map[int]bool
	watched       []int
}

func newClient() *client {
	return &client{
		hc:            http.DefaultClient,
		retryOnStatus: map[int]bool{502: true, 503: true, 504: true},
	}
}

func (c *client) get(ctx context.Context, url string) (*http.Response, error) {
	var resp *http.Response
	var err error
	for attempt := 1; attempt <= 4; attempt++ {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err = c.hc.Do(req)
		if err == nil && !c.retryOnStatus[resp.StatusCode] { // want `retry decision lists 5xx codes 502, 503, 504: 500 and 529 \(overloaded\) are not retried; use resp.StatusCode >= 500`
			return resp, nil
		}
		if resp != nil {
			resp.Body.Close()
		}
		time.Sleep(time.Duration(attempt) * 100 * time.Millisecond)
	}
	return resp, err
}

// ---- quiet ----

// A field that a setter may change holds no known set.
type tunable struct {
	hc    *http.Client
	codes map[int]bool
}

func newTunable() *tunable {
	return &tunable{hc: http.DefaultClient, codes: map[int]bool{502: true, 503: true}}
}

func (t *tunable) SetCodes(codes map[int]bool) { t.codes = codes }

func (t *tunable) get(ctx context.Context, url string) (*http.Response, error) {
	var resp *http.Response
	var err error
	for attempt := 1; attempt <= 4; attempt++ {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err = t.hc.Do(req)
		if err == nil && !t.codes[resp.StatusCode] {
			return resp, nil
		}
		if resp != nil {
			resp.Body.Close()
		}
		time.Sleep(time.Duration(attempt) * 100 * time.Millisecond)
	}
	return resp, err
}

// A field of codes a handler writes, and one only counted in metrics,
// decide no retry.
type server struct {
	failWith int
	counts   map[int]int
}

func newServer() *server {
	return &server{failWith: http.StatusServiceUnavailable, counts: map[int]int{500: 0, 502: 0, 503: 0}}
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.counts[s.failWith]++
	w.WriteHeader(s.failWith)
}

func (c *client) watch(code int) bool {
	for _, w := range c.watched {
		if w == code {
			return true
		}
	}
	return false
}
