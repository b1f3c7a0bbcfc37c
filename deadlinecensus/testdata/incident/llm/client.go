// Package llm is the incident's pipeline written the way real code writes
// it: the wait, the guard and the Retry-After reading are small helpers,
// Retry-After can raise the wait above the schedule, and after the last
// attempt the loop falls through to a backup model.
package llm

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Completer is what the callers hold; New returns the implementation.
type Completer interface {
	Complete(ctx context.Context, prompt string) (string, error) // want Complete:`needs 72s on param 1 for llm.\(\*Client\).Complete \(p99 40s\)`
}

// Client calls the primary model and, when it keeps refusing, the backup.
type Client struct {
	http    *http.Client
	primary string
	backup  string
}

// New returns a Completer for the two model endpoints.
func New(primary, backup string) Completer {
	return NewClient(primary, backup)
}

// NewClient returns the client for the two model endpoints.
func NewClient(primary, backup string) *Client {
	return &Client{http: &http.Client{}, primary: primary, backup: backup}
}

// maxRetries is the number of retries after the first attempt.
const maxRetries = 2

// reserve covers a full call at the slow end plus a call to the backup model.
const reserve = 65 * time.Second

var schedule = []time.Duration{7 * time.Second, 11 * time.Second}

// statusError is a refusal with the server's Retry-After.
type statusError struct {
	code       int
	retryAfter time.Duration
}

func (e *statusError) Error() string { return "llm: status " + strconv.Itoa(e.code) }

// call makes one request.
//
//retryvet:p99 40s
func (c *Client) call(ctx context.Context, url, prompt string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(prompt))
	if err != nil {
		return "", err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
		secs, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		return "", &statusError{code: resp.StatusCode, retryAfter: time.Duration(secs) * time.Second}
	}
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// backoff is the wait before retry number attempt+1.
func backoff(attempt int) time.Duration {
	return schedule[min(attempt, len(schedule)-1)]
}

// retryAfter is the wait the server asked for, 0 if none.
func retryAfter(err error) time.Duration {
	var se *statusError
	if errors.As(err, &se) {
		return se.retryAfter
	}
	return 0
}

// retryable says which failures are worth another attempt.
func retryable(err error) bool {
	var se *statusError
	return errors.As(err, &se)
}

// roomFor reports whether ctx leaves at least d.
func roomFor(ctx context.Context, d time.Duration) bool {
	dl, ok := ctx.Deadline()
	if !ok {
		return true
	}
	return time.Until(dl) >= d
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Complete asks the primary model, retrying a refusal only while the
// caller's deadline leaves room for the wait, a slow call and the backup;
// then it asks the backup.
func (c *Client) Complete(ctx context.Context, prompt string) (string, error) { // want Complete:`needs 72s on param 1 for llm.\(\*Client\).Complete \(p99 40s\)`
	for attempt := 0; ; attempt++ {
		out, err := c.call(ctx, c.primary, prompt)
		if err == nil {
			return out, nil
		}
		if !retryable(err) {
			return "", err
		}
		if attempt == maxRetries {
			break
		}
		wait := backoff(attempt)
		if ra := retryAfter(err); ra > wait {
			wait = ra
		}
		if !roomFor(ctx, wait+reserve) {
			break
		}
		if err := sleep(ctx, wait); err != nil {
			return "", err
		}
	}
	return c.call(ctx, c.backup, prompt)
}
