// Package notifiers reads classifier verdicts the right way round (the way
// alertmanager's other notifiers do), beside one more that reads a local
// classifier's verdict as success.
package notifiers

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"time"

	"example.com/t/polarity/notify"
)

type Notifier struct {
	client  *http.Client
	retrier *notify.Retrier
	channel string
}

// The verdict handed to the caller as it is (webhook, pushover, victorops).
func (n *Notifier) webhook(ctx context.Context, req *http.Request) (bool, error) {
	resp, err := n.client.Do(req.WithContext(ctx))
	if err != nil {
		return true, err
	}
	defer resp.Body.Close()
	return n.retrier.Check(resp.StatusCode, nil)
}

// The error wrapped and handed on with the verdict (slack).
func (n *Notifier) slack(ctx context.Context, req *http.Request) (bool, error) {
	resp, err := n.client.Do(req.WithContext(ctx))
	if err != nil {
		return true, err
	}
	defer resp.Body.Close()
	retry, err := n.retrier.Check(resp.StatusCode, resp.Body)
	if err != nil {
		err = fmt.Errorf("channel %q: %w", n.channel, err)
	}
	return retry, err
}

// The maintainers' fix of the opsgenie notifier: the error is tested first.
func (n *Notifier) opsgenieFixed(ctx context.Context, reqs ...*http.Request) (bool, error) {
	for _, req := range reqs {
		resp, err := n.client.Do(req.WithContext(ctx))
		if err != nil {
			return true, err
		}
		defer resp.Body.Close()
		shouldRetry, err := n.retrier.Check(resp.StatusCode, resp.Body)
		if err != nil {
			return shouldRetry, err
		}
	}
	return true, nil
}

// A retry loop drops the error of a retryable code to go round again.
func (n *Notifier) sendRetrying(ctx context.Context, req *http.Request) error {
	for attempt := 0; attempt < 3; attempt++ {
		resp, err := n.client.Do(req.WithContext(ctx))
		if err != nil {
			return err
		}
		retry, err := n.retrier.Check(resp.StatusCode, nil)
		resp.Body.Close()
		if !retry {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second << attempt):
		}
	}
	return errors.New("out of attempts")
}

// A success verdict read as success: its error comes with false.
func (n *Notifier) accepted(ctx context.Context, req *http.Request) error {
	resp, err := n.client.Do(req.WithContext(ctx))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	ok, err := notify.Accepted(resp.StatusCode)
	if !ok {
		return err
	}
	return nil
}

// A verdict read as success whose true path reports its own error.
func (n *Notifier) retryableError(ctx context.Context, req *http.Request) error {
	resp, err := n.client.Do(req.WithContext(ctx))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	retry, err := n.retrier.Check(resp.StatusCode, nil)
	if !retry {
		return err
	}
	return errors.New("retryable status")
}

// classify returns (retry, err): true for 429 and 5xx.
func classify(code int) (bool, error) {
	switch {
	case code < 300:
		return false, nil
	case code == http.StatusTooManyRequests || code >= 500:
		return true, fmt.Errorf("status %d: retry", code)
	}
	return false, fmt.Errorf("status %d", code)
}

// The local classifier's verdict read as success in an if/else.
func (n *Notifier) send(ctx context.Context, req *http.Request) error {
	resp, err := n.client.Do(req.WithContext(ctx))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	ok, err := classify(resp.StatusCode) // want `send reads classify's first result \(ok\) as success, but it is the retry verdict \(true for 429, 500, 502, 503 and 504, with the error set\)`
	if ok {
		log.Printf("sent to %s", n.channel)
	} else {
		return err
	}
	return nil
}

var errExists = errors.New("bucket exists")

// ensure returns (existed, err): no status code decides it.
func ensure(name string) (bool, error) {
	if name == "alerts" {
		return true, errExists
	}
	return false, nil
}

// An "already exists" verdict whose error is meant to be dropped.
func (n *Notifier) setup() error {
	exists, err := ensure(n.channel)
	if !exists {
		return err
	}
	return nil
}
