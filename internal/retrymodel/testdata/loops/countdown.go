package loops

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// A loop bounded by a counter the body steps in every turn: a retry
// without waits still counts its attempts.

type permanent struct{ msg string }

func (e permanent) Error() string { return e.msg }

func send(ctx context.Context, c *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

func sendTwice(ctx context.Context, c *http.Client, url string, retries int) error {
	var err error
	for retries >= 0 { // want `retry loop: attempts=\? jitter=no`
		retries--
		err = send(ctx, c, url)
		if err == nil {
			return nil
		}
		if _, ok := err.(permanent); ok {
			return err
		}
	}
	return err
}

// Lookalike: a bounded read of up to n messages goes on after each
// success; it is no retry.
type reader interface {
	Next(ctx context.Context) (string, error)
}

func readN(ctx context.Context, r reader, n int) ([]string, error) {
	var out []string
	for n > 0 {
		n--
		m, err := r.Next(ctx)
		if err != nil {
			return out, err
		}
		out = append(out, m)
	}
	return out, nil
}

// Lookalike: the counter steps only on some turns, so nothing bounds the
// loop by its turns; without a wait it is a worker, not a retry.
func drain(ctx context.Context, r reader, budget int) error {
	for budget > 0 {
		m, err := r.Next(ctx)
		if err != nil {
			return err
		}
		if m == "" {
			return nil
		}
		if m == "count" {
			budget--
		}
	}
	return errors.New("budget spent")
}

// A count-down from a budget declared before the loop: 4 attempts, not
// the one a count up from 4 to 0 would give.
func sendCountDown(ctx context.Context, c *http.Client, url string) error {
	attempts := 4
	var err error
	for ; attempts > 0; attempts-- { // want `retry loop: attempts=4 waits=1s,2s,3s jitter=no`
		err = send(ctx, c, url)
		if err == nil {
			return nil
		}
		pause(ctx, time.Duration(5-attempts)*time.Second)
	}
	return err
}

// ... down to and with 0: one more.
func sendDownToZero(ctx context.Context, c *http.Client, url string) error {
	var err error
	for left := 2; left >= 0; left-- { // want `retry loop: attempts=3 jitter=no`
		if err = send(ctx, c, url); err == nil {
			return nil
		}
	}
	return err
}

// ... and stepped in the body, tested after the step.
func sendTriesLeft(ctx context.Context, c *http.Client, url string) error {
	tries := 3
	for { // want `retry loop: attempts=3 waits=2s,2s jitter=no`
		err := send(ctx, c, url)
		if err == nil {
			return nil
		}
		tries--
		if tries == 0 {
			return err
		}
		pause(ctx, 2*time.Second)
	}
}

func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
