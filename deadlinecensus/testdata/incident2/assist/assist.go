// Package assist asks a hosted model and, when it keeps refusing, a spare
// one. The retry is deadline-aware: the waits come from a package-level
// table indexed by the attempt and may be raised by the server's
// Retry-After, a method on the service checks the time left against a
// clock the service holds, and the pause between attempts adds a random
// spread to the wait.
package assist

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// pauses[i] is the wait after failed attempt i.
var pauses = []time.Duration{7 * time.Second, 11 * time.Second}

// slack is kept for one call at the slow end and the call to the spare.
const slack = 65 * time.Second

// Service is the assistant.
type Service struct {
	hc    *http.Client
	clock func() time.Time
	main  string
	spare string
}

// NewService returns the assistant for the two endpoints.
func NewService(main, spare string) *Service {
	return &Service{hc: &http.Client{}, clock: time.Now, main: main, spare: spare}
}

// refusal is an answer worth asking again, with the server's hint.
type refusal struct {
	status int
	after  time.Duration
}

func (r *refusal) Error() string { return "assist: refused with " + strconv.Itoa(r.status) }

// hint reads Retry-After in seconds, 0 when absent or malformed.
func hint(h http.Header) time.Duration {
	n, err := strconv.Atoi(h.Get("Retry-After"))
	if err != nil || n < 0 {
		return 0
	}
	return time.Duration(n) * time.Second
}

// post sends one question to url.
//
//retryvet:p99 40s
func (s *Service) post(ctx context.Context, url, q string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(q))
	if err != nil {
		return "", err
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusServiceUnavailable, 529:
		return "", &refusal{status: resp.StatusCode, after: hint(resp.Header)}
	}
	body, err := io.ReadAll(resp.Body)
	return string(body), err
}

// enough says whether the deadline on ctx, read against the service's
// clock, leaves need.
func (s *Service) enough(ctx context.Context, need time.Duration) bool {
	end, ok := ctx.Deadline()
	if !ok {
		return true
	}
	return end.Sub(s.clock()) >= need
}

// pause waits d and up to a quarter of d more, or until ctx is done.
func pause(ctx context.Context, d time.Duration) error {
	spread := time.Duration(rand.Int64N(int64(d / 4)))
	t := time.NewTimer(d + spread)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Ask retries a refusal while the time left covers the wait and the
// slack, then asks the spare.
func (s *Service) Ask(ctx context.Context, q string) (string, error) { // want Ask:`needs 72s on param 1 for assist.\(\*Service\).Ask \(p99 40s\)`
	for attempt := 0; attempt <= len(pauses); attempt++ {
		answer, err := s.post(ctx, s.main, q)
		if err == nil {
			return answer, nil
		}
		var r *refusal
		if !errors.As(err, &r) {
			return "", err
		}
		if attempt == len(pauses) {
			break
		}
		wait := pauses[attempt]
		if r.after > wait {
			wait = r.after
		}
		if !s.enough(ctx, wait+slack) {
			break
		}
		if err := pause(ctx, wait); err != nil {
			return "", err
		}
	}
	return s.post(ctx, s.spare, q)
}
