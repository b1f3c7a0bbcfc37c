// Package postattempt: a retry whose attempts are the for clause's init and
// post statements (`for err := op(); err != nil; err = op() { wait }`) is
// a retry like any other; a loop that reads on while the call succeeds is
// not.
package postattempt

import (
	"bufio"
	"context"
	"net/http"
	"time"
)

type config struct {
	ctx   context.Context
	delay time.Duration
}

type Option func(*config)

func WithContext(ctx context.Context) Option { return func(c *config) { c.ctx = ctx } }

// Do is a retry library's retry-forever mode: the context arrives in the
// options, and the wait never looks at it.
func Do(op func() error, opts ...Option) error {
	c := &config{ctx: context.Background(), delay: time.Second}
	for _, o := range opts {
		o(c)
	}
	for err := op(); err != nil; err = op() {
		<-time.After(c.delay) // want `wait ignores cancellation: <-time.After in retry loop keeps waiting after c.ctx is done \(waits 1s, 1s, 1s, ...\)`
	}
	return nil
}

// DoCtx waits in a select on the same context: quiet.
func DoCtx(op func() error, opts ...Option) error {
	c := &config{ctx: context.Background(), delay: time.Second}
	for _, o := range opts {
		o(c)
	}
	for err := op(); err != nil; err = op() {
		select {
		case <-c.ctx.Done():
			return c.ctx.Err()
		case <-time.After(c.delay):
		}
	}
	return nil
}

func Get(ctx context.Context, hc *http.Client, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	var resp *http.Response
	for resp, err = hc.Do(req); err != nil; resp, err = hc.Do(req) {
		time.Sleep(2 * time.Second) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after ctx is done`
	}
	return resp, nil
}

type page struct{ next string }

func list(ctx context.Context, hc *http.Client, token string) (page, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://example.com/?page="+token, nil)
	if err != nil {
		return page{}, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return page{}, err
	}
	resp.Body.Close()
	return page{}, nil
}

// Pages walks a paginated listing with a pause between pages: the call is
// made again after it succeeds, not after it fails; quiet.
func Pages(ctx context.Context, hc *http.Client) error {
	var err error
	var p page
	for p, err = list(ctx, hc, ""); err == nil && p.next != ""; p, err = list(ctx, hc, p.next) {
		time.Sleep(100 * time.Millisecond)
	}
	return err
}

// Lines reads while the read succeeds: quiet.
func Lines(r *bufio.Reader) int {
	n := 0
	for _, err := r.ReadString('\n'); err == nil; _, err = r.ReadString('\n') {
		n++
		time.Sleep(time.Millisecond)
	}
	return n
}
