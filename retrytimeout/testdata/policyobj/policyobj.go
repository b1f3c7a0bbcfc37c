// Package policyobj holds retries whose policy is an object (its bound
// and its waits are methods, s.Max() and s.Delay(attempt)) and whose
// answer is a record of another package, beside loops that walk an
// object's elements by index and a poll for a ready flag.
package policyobj

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"example.com/t/policyobj/record"
)

type strategy struct {
	max  int
	base time.Duration
}

func (s *strategy) Max() int                        { return s.max }
func (s *strategy) Delay(attempt int) time.Duration { return s.base * time.Duration(attempt) }
func (s *strategy) Retry(attempt int, err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	return attempt < s.max && err != nil
}

type Sender struct{ hc *http.Client }

func (c *Sender) post(ctx context.Context, url, body string) (record.Delivery, error) {
	var d record.Delivery
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return d, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return d, err
	}
	defer resp.Body.Close()
	d.StatusCode = resp.StatusCode
	d.Ready = resp.Header.Get("X-Ready") == "1"
	return d, nil
}

// Deliver retries through a policy object: s.Max() bounds the attempts
// and s.Retry(attempt, err) and s.Delay(attempt) read the attempt, which
// makes them no collection the loop walks.
func (c *Sender) Deliver(ctx context.Context, url, body string) error {
	s := &strategy{max: 3, base: time.Second}
	var err error
	for attempt := 1; attempt <= s.Max(); attempt++ {
		_, err = c.post(ctx, url, body)
		if err == nil {
			return nil
		}
		if !s.Retry(attempt, err) {
			return err
		}
		time.Sleep(s.Delay(attempt)) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after ctx is done`
	}
	return err
}

// Send succeeds on a 2xx written into another package's record: the
// record's StatusCode is the response's status, as this package fills it.
func (c *Sender) Send(ctx context.Context, url, body string) error {
	var err error
	for attempt := 0; attempt < 4; attempt++ {
		var d record.Delivery
		d, err = c.post(ctx, url, body)
		if err == nil && d.StatusCode >= 200 && d.StatusCode < 300 {
			return nil
		}
		if err == nil {
			err = errors.New("not delivered")
		}
		time.Sleep(2 * time.Second) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after ctx is done`
	}
	return err
}

// AwaitReady polls until the server says it is ready: a flag of the
// record, not a failure, sends it round.
func (c *Sender) AwaitReady(ctx context.Context, url string) error {
	for i := 0; i < 30; i++ {
		d, err := c.post(ctx, url, "")
		if err != nil {
			return err
		}
		if d.Ready {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return errors.New("never ready")
}

type endpoints struct{ urls []string }

func (e *endpoints) Len() int         { return len(e.urls) }
func (e *endpoints) At(i int) string  { return e.urls[i] }
func (e *endpoints) Weight(i int) int { return i }

// First tries each endpoint once: the bound is the object's length and
// the body reads its i-th element (e.At(i)), a walk, not a retry.
func (c *Sender) First(ctx context.Context, e *endpoints, body string) error {
	var err error
	for i := 0; i < e.Len(); i++ {
		if _, err = c.post(ctx, e.At(i), body); err == nil {
			return nil
		}
		time.Sleep(time.Duration(e.Weight(i)) * time.Millisecond)
	}
	return err
}
