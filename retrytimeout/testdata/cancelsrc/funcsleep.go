package cancelsrc

import (
	"context"
	"net/http"
	"time"

	"example.com/t/cancelsrc/jobs"
)

func get(ctx context.Context, hc *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode >= 500 {
		return errStatus
	}
	return nil
}

// Retrier sleeps through a func field the constructor sets to time.Sleep
// (so that a test can replace it).
type Retrier struct {
	hc    *http.Client
	sleep func(time.Duration)
}

func NewRetrier(hc *http.Client) *Retrier {
	return &Retrier{hc: hc, sleep: time.Sleep}
}

func (r *Retrier) Get(ctx context.Context, url string) error {
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		if err = get(ctx, r.hc, url); err == nil {
			return nil
		}
		r.sleep(jittered(attempt)) // want `wait ignores cancellation: r.sleep \(time.Sleep\) in retry loop keeps waiting after ctx is done;.* wait in a select on ctx.Done\(\) and a timer`
	}
	return err
}

// Backoffer's wait is set by a method to another package's helper that
// ignores cancellation.
type Backoffer struct {
	hc   *http.Client
	wait func(time.Duration)
}

func (b *Backoffer) defaults() { b.wait = jobs.Pause }

func (b *Backoffer) Get(ctx context.Context, url string) error {
	b.defaults()
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		if err = get(ctx, b.hc, url); err == nil {
			return nil
		}
		b.wait(jittered(attempt)) // want `wait ignores cancellation: b.wait \(jobs.Pause\) in retry loop keeps waiting after ctx is done`
	}
	return err
}

// pause is a package variable holding time.Sleep.
var pause = time.Sleep

func GetWithPause(ctx context.Context, hc *http.Client, url string) error {
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		if err = get(ctx, hc, url); err == nil {
			return nil
		}
		pause(jittered(attempt)) // want `wait ignores cancellation: pause \(time.Sleep\) in retry loop keeps waiting after ctx is done`
	}
	return err
}

// CtxRetrier's sleep returns when ctx is done: a cancellable wait. Quiet.
type CtxRetrier struct {
	hc    *http.Client
	sleep func(context.Context, time.Duration) error
}

func NewCtxRetrier(hc *http.Client) *CtxRetrier {
	return &CtxRetrier{hc: hc, sleep: jobs.PauseCtx}
}

func (r *CtxRetrier) Get(ctx context.Context, url string) error {
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		if err = get(ctx, r.hc, url); err == nil {
			return nil
		}
		if serr := r.sleep(ctx, jittered(attempt)); serr != nil {
			return serr
		}
	}
	return err
}

// Custom's sleep is whatever the caller of an exported constructor gives:
// its cancellability is not known, and nothing is said about it.
type Custom struct {
	hc    *http.Client
	sleep func(time.Duration)
}

func NewCustom(hc *http.Client, sleep func(time.Duration)) *Custom {
	return &Custom{hc: hc, sleep: sleep}
}

func (c *Custom) Get(ctx context.Context, url string) error {
	var err error
	for attempt := 0; attempt < 5; attempt++ { // want `attempt-only retry: retry loop makes 5 attempts`
		if err = get(ctx, c.hc, url); err == nil {
			return nil
		}
		c.sleep(jittered(attempt))
	}
	return err
}

// Retrier's sleep ignoring a context in a function that has none to
// honour: quiet, and no attempt-only finding either: on Background with
// nothing cancellable in scope, no caller's deadline reaches the retry.
func (r *Retrier) GetBackground(url string) error {
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		if err = get(context.Background(), r.hc, url); err == nil {
			return nil
		}
		r.sleep(jittered(attempt))
	}
	return err
}

// Shape 4: the context is tested at the top of each attempt, which bounds
// the retry between attempts, but the sleep still ignores a cancel that
// comes during it.
func GetChecked(ctx context.Context, hc *http.Client, url string) error {
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		select {
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		if err = get(ctx, hc, url); err == nil {
			return nil
		}
		time.Sleep(jittered(attempt)) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after ctx is done`
	}
	return err
}
