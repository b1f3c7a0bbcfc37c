// Package guardtime: deadline guards written with time.Time's Before and
// After against a clock the client holds in a func field, and a guard
// that reads the base wait while the pause spreads it below that.
package guardtime

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"time"
)

// waits are the base waits before the second and third attempts.
var waits = []time.Duration{4 * time.Second, 8 * time.Second}

var errNoTime = errors.New("guardtime: no time left for a retry")

type Client struct {
	hc  *http.Client
	url string
	now func() time.Time
}

func New(url string) *Client {
	return &Client{hc: &http.Client{}, url: url, now: time.Now}
}

// roomFor: another attempt only when need and 5s for it fit before the
// deadline.
func (c *Client) roomFor(ctx context.Context, need time.Duration) bool {
	dl, ok := ctx.Deadline()
	if !ok {
		return true
	}
	return c.now().Add(need + 5*time.Second).Before(dl)
}

// pause sleeps between half of d and d.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d/2 + rand.N(d/2))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (c *Client) send(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	if err != nil {
		return err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// Get asks the guard with the base wait (4s) before the pause spreads it
// to 2s-4s: it needs 4s + 5s = 9s left for the first retry, not 2s + 5s.
func (c *Client) Get(ctx context.Context) error { // want Get:`needs 9s on param 1 for guardtime.\(\*Client\).Get$`
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if attempt > 0 {
			wait := waits[attempt-1]
			if !c.roomFor(ctx, wait) {
				return errNoTime
			}
			if perr := pause(ctx, wait); perr != nil {
				return perr
			}
		}
		if err = c.send(ctx); err == nil {
			return nil
		}
	}
	return err
}

// GetInline writes the guard in place, with After: the same 9s.
func (c *Client) GetInline(ctx context.Context) error { // want GetInline:`needs 9s on param 1 for guardtime.\(\*Client\).GetInline`
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if attempt > 0 {
			wait := waits[attempt-1]
			if dl, ok := ctx.Deadline(); ok && !dl.After(c.now().Add(wait+5*time.Second)) {
				return errNoTime
			}
			if perr := pause(ctx, wait); perr != nil {
				return perr
			}
		}
		if err = c.send(ctx); err == nil {
			return nil
		}
	}
	return err
}

// GetLate only asks whether the deadline has passed: no guard of the
// wait, so the need is at least the first wait (2s, the least the pause
// sleeps).
func (c *Client) GetLate(ctx context.Context) error { // want GetLate:`needs at least 2s on param 1 for guardtime.\(\*Client\).GetLate`
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if attempt > 0 {
			if dl, ok := ctx.Deadline(); ok && c.now().After(dl) {
				return errNoTime
			}
			if perr := pause(ctx, waits[attempt-1]); perr != nil {
				return perr
			}
		}
		if err = c.send(ctx); err == nil {
			return nil
		}
	}
	return err
}
