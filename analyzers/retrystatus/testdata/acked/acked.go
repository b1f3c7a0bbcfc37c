// Package acked retries a send whose error result is a type of the
// protocol's own (outcome.Result), whose success the protocol's
// predicate says (outcome.IsAck) and whose waits are a ticker made for
// each pause: a retry all the same.
package acked

import (
	"context"
	"errors"
	"net/http"
	"time"

	"example.com/t/acked/outcome"
	"example.com/t/acked/sched"
)

var retriable = map[int]string{
	502: "Bad Gateway",
	503: "Service Unavailable",
	504: "Gateway Timeout",
}

func transient(code int) bool {
	_, ok := retriable[code] // want `retry decision lists 5xx codes 502, 503, 504: 500 and 529 \(overloaded\) are not retried; use code >= 500`
	return ok
}

type Sender struct{ hc *http.Client }

func (s *Sender) once(ctx context.Context, url string) outcome.Result {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	if err != nil {
		return err
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return &outcome.Status{Code: resp.StatusCode}
	}
	return outcome.Ack
}

func (s *Sender) Send(ctx context.Context, url string) outcome.Result {
	for try := 0; ; try++ {
		res := s.once(ctx, url)
		if outcome.IsAck(res) {
			return res
		}
		var st *outcome.Status
		if errors.As(res, &st) && !transient(st.Code) {
			return res
		}
		if err := sched.Pause(ctx, try+1); err != nil {
			return res
		}
	}
}

// Watch asks on a ticker made before its loop: every tick is another
// look at a state, a poll, whatever the answer.
func (s *Sender) Watch(ctx context.Context, url string) error {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		res := s.once(ctx, url)
		if outcome.IsAck(res) {
			return nil
		}
		var st *outcome.Status
		if errors.As(res, &st) && st.Code != 502 && st.Code != 503 && st.Code != 504 {
			return res
		}
	}
}
