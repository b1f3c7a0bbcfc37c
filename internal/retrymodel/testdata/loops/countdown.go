package loops

import (
	"context"
	"errors"
	"net/http"
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
