// Package defaults: a wait that ignores cancellation is judged by the
// schedule the package's own constructor gives an exported config field
// when nothing else folds it: by default under a second in all is quiet.
package defaults

import (
	"context"
	"net/http"
	"time"
)

// Options are the caller's to replace; the constructor's are the defaults.
type Options struct {
	MaxRetries    int
	RetryInterval time.Duration
}

type Store struct {
	hc   *http.Client
	opts *Options
}

func NewStore(hc *http.Client) *Store {
	return &Store{hc: hc, opts: &Options{MaxRetries: 3, RetryInterval: 100 * time.Millisecond}}
}

func WithOptions(s *Store, o *Options) { s.opts = o }

// Put waits 100ms, 200ms, 400ms by default: 700ms in all, quiet.
func (s *Store) Put(ctx context.Context, url string) error {
	var err error
	for attempt := 0; attempt <= s.opts.MaxRetries; attempt++ {
		if attempt > 0 {
			time.Sleep(s.opts.RetryInterval << (attempt - 1))
		}
		var req *http.Request
		req, err = http.NewRequestWithContext(ctx, http.MethodPut, url, nil)
		if err != nil {
			return err
		}
		var resp *http.Response
		if resp, err = s.hc.Do(req); err == nil {
			resp.Body.Close()
			return nil
		}
	}
	return err
}

// Client's schedule is a slice indexed by the attempt.
type Client struct {
	HTTP     *http.Client
	Schedule []time.Duration
}

func NewClient() Client {
	return Client{HTTP: http.DefaultClient, Schedule: []time.Duration{50 * time.Microsecond, 100 * time.Microsecond, 200 * time.Microsecond}}
}

// Send waits 50µs, 100µs, 200µs by default: quiet.
func Send(c *Client, req *http.Request) (*http.Response, error) {
	resp, err := c.HTTP.Do(req)
	for try := 0; try < len(c.Schedule); try++ {
		if err == nil && resp.StatusCode < 500 {
			break
		}
		time.Sleep(c.Schedule[try])
		resp, err = c.HTTP.Do(req)
	}
	return resp, err
}

// Slow's default waits are seconds: reported.
type Slow struct {
	HTTP  *http.Client
	Waits []time.Duration
}

func NewSlow() *Slow {
	return &Slow{HTTP: http.DefaultClient, Waits: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}}
}

func (s *Slow) Send(req *http.Request) (*http.Response, error) {
	resp, err := s.HTTP.Do(req)
	for try := 0; try < len(s.Waits); try++ {
		if err == nil && resp.StatusCode < 500 {
			break
		}
		time.Sleep(s.Waits[try]) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after req.Context\(\) is done \(by default waits 1s, 2s, 4s: a cancel is seen only when the wait ends, up to 4s later\)`
		resp, err = s.HTTP.Do(req)
	}
	return resp, err
}

// Two constructors disagree on Interval: no default, reported.
type Pool struct {
	hc       *http.Client
	Interval time.Duration
}

func NewFast() *Pool    { return &Pool{hc: http.DefaultClient, Interval: 10 * time.Millisecond} }
func NewPatient() *Pool { return &Pool{hc: http.DefaultClient, Interval: 5 * time.Second} }

func (p *Pool) Get(ctx context.Context, url string) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		var req *http.Request
		req, err = http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		var resp *http.Response
		if resp, err = p.hc.Do(req); err == nil {
			resp.Body.Close()
			return nil
		}
		time.Sleep(p.Interval) // want `wait ignores cancellation`
	}
	return err
}
