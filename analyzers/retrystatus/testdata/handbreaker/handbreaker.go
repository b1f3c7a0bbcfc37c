// Package handbreaker holds hand-rolled circuit breakers (a count of
// failures in a row, a window of failure times) that count a caller's
// cancellation as a failure of the dependency, beside breakers that leave
// context errors out, a retry's own attempt counter, and a stats counter.
package handbreaker

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"
)

var errOpen = errors.New("circuit open")

// breaker opens for 30s after 5 failures in a row.
type breaker struct {
	mu        sync.Mutex
	failures  int
	openUntil time.Time
}

func (b *breaker) allow() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if time.Now().Before(b.openUntil) {
		return false
	}
	return true
}

func (b *breaker) fail() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.failures++
	if b.failures >= 5 {
		b.openUntil = time.Now().Add(30 * time.Second)
	}
}

func (b *breaker) succeed() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.failures = 0
}

type Client struct {
	hc *http.Client
	b  breaker
}

func (c *Client) Get(ctx context.Context, url string) (*http.Response, error) {
	if !c.b.allow() {
		return nil, errOpen
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.b.fail() // want `the hand-rolled breaker counts the caller's cancellation as a failure of the dependency: every error of c.hc.Do, which runs on ctx, the caller's context, is counted in failures with no test for context.Canceled or DeadlineExceeded, and at 5 failures it turns later calls away \(at handbreaker/handbreaker.go:27\), so callers that give up open it for every caller; leave context errors out before counting`
		return nil, err
	}
	c.b.succeed()
	return resp, nil
}

// Inline keeps its window of failure times in the client and checks it
// before each call.
type Inline struct {
	hc    *http.Client
	fails []time.Time
}

func (c *Inline) Get(ctx context.Context, url string) (*http.Response, error) {
	now := time.Now()
	for len(c.fails) > 0 && now.Sub(c.fails[0]) > time.Minute {
		c.fails = c.fails[1:]
	}
	if len(c.fails) >= 10 {
		return nil, errOpen
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.fails = append(c.fails, now) // want `the hand-rolled breaker counts the caller's cancellation .* counted in fails .* at 10 failures it turns later calls away \(at handbreaker/handbreaker.go:82\)`
		return nil, err
	}
	return resp, nil
}

// Guarded leaves the caller's own cancellation out before counting.
type Guarded struct {
	hc *http.Client
	b  breaker
}

func (c *Guarded) Get(ctx context.Context, url string) (*http.Response, error) {
	if !c.b.allow() {
		return nil, errOpen
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() == nil {
			c.b.fail()
		}
		return nil, err
	}
	c.b.succeed()
	return resp, nil
}

// Poller counts its own attempts and gives up after the failure it
// counts: a retry's attempt counter, no gate before the call. Quiet.
type Poller struct {
	hc       *http.Client
	attempts int
}

func (p *Poller) Poll(ctx context.Context, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := p.hc.Do(req)
	if err != nil {
		p.attempts++
		if p.attempts >= 3 {
			return nil, err
		}
		return nil, nil
	}
	p.attempts = 0
	return resp, nil
}

// Stats counts errors for a metric: never compared with a bound. Quiet.
type Stats struct {
	hc     *http.Client
	errors int
}

func (s *Stats) Get(ctx context.Context, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		s.errors++
		return nil, err
	}
	return resp, nil
}

// Warm runs on a context of its own: no caller gives up on it. Quiet.
func (c *Client) Warm(url string) error {
	if !c.b.allow() {
		return errOpen
	}
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.b.fail()
		return err
	}
	c.b.succeed()
	return resp.Body.Close()
}

// strictBreaker opens past its bound: more than 3 failures in a row, so
// at the 4th.
type strictBreaker struct {
	fails int
	open  bool
}

func (b *strictBreaker) fail() {
	b.fails++
	if b.fails > 3 {
		b.open = true
	}
}

type Strict struct {
	hc *http.Client
	b  strictBreaker
}

func (c *Strict) Get(ctx context.Context, url string) (*http.Response, error) {
	if c.b.open {
		return nil, errOpen
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.b.fail() // want `counted in fails with no test for context.Canceled or DeadlineExceeded, and at 4 failures it turns later calls away`
		return nil, err
	}
	c.b.fails = 0
	return resp, nil
}
