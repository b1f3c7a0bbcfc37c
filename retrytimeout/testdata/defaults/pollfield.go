package defaults

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// A wait read from a duration field that the constructor sets to the
// package's default (through a function that returns it) and a setter
// lets the caller replace: by default each wait is that default.

func defaultPollInterval() time.Duration { return 100 * time.Millisecond }

type Waiter struct {
	PollInterval time.Duration
	URL          string
}

func NewWaiter(url string) *Waiter {
	return &Waiter{PollInterval: defaultPollInterval(), URL: url}
}

func (w *Waiter) WithPollInterval(d time.Duration) *Waiter {
	w.PollInterval = d
	return w
}

func (w *Waiter) probe(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, w.URL, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return errors.New(resp.Status)
	}
	return nil
}

// Ready checks ctx at each turn and sleeps the interval between probes:
// by default a cancel is seen at most 100ms late. Quiet.
func (w *Waiter) Ready(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		if err := w.probe(ctx); err == nil {
			return nil
		}
		time.Sleep(w.PollInterval)
	}
}

// Spin sleeps the same interval but never looks at ctx: after a cancel
// each probe fails at once and the loop waits on, for ever.
func (w *Waiter) Spin(ctx context.Context) error {
	for {
		if err := w.probe(ctx); err == nil {
			return nil
		}
		time.Sleep(w.PollInterval) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after ctx is done \(by default waits 100ms, 100ms, 100ms, \.\.\.`
	}
}

type SlowWaiter struct{ Every time.Duration }

func NewSlowWaiter() *SlowWaiter { return &SlowWaiter{Every: 5 * time.Second} }

// ReadySlow checks ctx at each turn, but its default wait is 5s: a
// cancel is seen up to 5s late.
func (s *SlowWaiter) ReadySlow(ctx context.Context, w *Waiter) error {
	for {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err := w.probe(ctx); err == nil {
			return nil
		}
		time.Sleep(s.Every) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after ctx is done \(by default waits 5s, 5s, 5s, \.\.\.: a cancel is seen only when the wait ends, 5s or more later at worst\)`
	}
}
