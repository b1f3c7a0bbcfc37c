// Package loops holds the hand-rolled retry shapes the model must recognise,
// and the lookalikes it must not.
package loops

import (
	"context"
	"errors"
	"math/rand/v2"

	"github.com/cenkalti/backoff/v5"
	"net/http"
	"time"
)

func call(ctx context.Context) error                  { return nil }
func get(ctx context.Context) (*http.Response, error) { return nil, nil }
func isRetryable(err error) bool                      { return err != nil }

const maxAttempts = 4

// Counted loop with exponential backoff and no jitter.
func counted(ctx context.Context) error {
	var err error
	for i := 0; i < 3; i++ { // want `retry loop: attempts=3 waits=100ms,200ms jitter=no deadline=no cancellable=no retryafter=no`
		if err = call(ctx); err == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond << i)
	}
	return err
}

// range n with a named constant, a ctx-aware wait and full jitter.
func rangeN(ctx context.Context) error {
	var err error
	for attempt := range maxAttempts { // want `retry loop: attempts=4 jitter=yes deadline=yes cancellable=yes retryafter=no classifier`
		err = call(ctx)
		if err == nil {
			return nil
		}
		if !isRetryable(err) {
			return err
		}
		wait := time.Duration(rand.Int64N(int64(time.Second << attempt)))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
	return err
}

// for {} with a counter tested in the body and a doubling wait variable.
func forever(ctx context.Context) (*http.Response, error) {
	attempt := 0
	delay := time.Second
	for { // want `retry loop: attempts=5 waits=1s,2s,4s,8s jitter=no deadline=no`
		resp, err := get(ctx)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		attempt++
		if attempt >= 5 {
			return nil, errors.New("gave up")
		}
		time.Sleep(delay)
		delay *= 2
	}
}

// for err != nil, the first attempt before the loop.
func whileErr(ctx context.Context) error {
	err := call(ctx)
	for i := 0; err != nil && i < 2; i++ { // want `retry loop: attempts=3 waits=500ms,500ms`
		time.Sleep(500 * time.Millisecond)
		err = call(ctx)
	}
	return err
}

// The incident's deadline-aware retry: waits 7s then 11s, reserve 65s.
var waits = []time.Duration{7 * time.Second, 11 * time.Second}

const reserve = 65 * time.Second

func guarded(ctx context.Context) error {
	err := call(ctx)
	for i := 0; i < 2 && err != nil; i++ { // want `retry loop: attempts=3 waits=7s,11s jitter=no deadline=yes.*guard=wait\+65s`
		wait := waits[i]
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait+reserve {
			return err
		}
		time.Sleep(wait)
		err = call(ctx)
	}
	return err
}

// goto loop.
func gotoRetry(ctx context.Context) error {
	tries := 0
retry: // want `retry loop \(goto\): attempts=4 waits=1s,1s,1s`
	err := call(ctx)
	if err != nil && tries < 3 {
		tries++
		time.Sleep(time.Second)
		goto retry
	}
	return err
}

// recursion after a wait.
func recurse(ctx context.Context, attempt int) error { // want `retry by recursion: .*cancellable=no`
	err := call(ctx)
	if err != nil {
		if attempt >= 3 {
			return err
		}
		time.Sleep(time.Second)
		return recurse(ctx, attempt+1)
	}
	return nil
}

// Body is a closure.
func closureBody(ctx context.Context) error {
	var err error
	for i := 0; i < 3; i++ { // want `retry loop: attempts=3 waits=2s,2s`
		err = func() error {
			return call(ctx)
		}()
		if err == nil {
			break
		}
		time.Sleep(2 * time.Second)
	}
	return err
}

// Retry-After honoured, per-attempt timeout, overall budget.
func retryAfter(ctx context.Context) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for i := 0; i < 3; i++ { // want `retry loop: attempts=3 jitter=no deadline=yes cancellable=yes retryafter=yes maxelapsed=30s perattempt=5s`
		actx, acancel := context.WithTimeout(ctx, 5*time.Second)
		resp, err := getWith(actx)
		acancel()
		if err == nil && resp.StatusCode != http.StatusTooManyRequests {
			return resp, nil
		}
		wait := time.Second
		if resp != nil {
			if d, err := time.ParseDuration(resp.Header.Get("Retry-After") + "s"); err == nil {
				wait = d
			}
		}
		if err := sleepCtx(ctx, wait); err != nil {
			return nil, err
		}
	}
	return nil, errors.New("exhausted")
}

func getWith(ctx context.Context) (*http.Response, error) { return get(ctx) }

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// A tight counted retry without a wait, named as one.
func tight(ctx context.Context) error {
	var err error
	for retries := 0; retries < 2; retries++ { // want `retry loop: attempts=2 jitter=no`
		if err = call(ctx); err == nil {
			return nil
		}
	}
	return err
}

// ---- lookalikes: none of these is a retry ----

// A poller runs again after success.
func poll(ctx context.Context) error {
	for {
		resp, err := get(ctx)
		if err != nil {
			return err
		}
		if resp.Header.Get("X-Done") == "true" {
			return nil
		}
		time.Sleep(5 * time.Second)
	}
}

// A ticker loop.
func tick(ctx context.Context) {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := call(ctx); err != nil {
				continue
			}
		}
	}
}

type page struct{ next string }

func list(ctx context.Context, token string) (*page, error) { return &page{}, nil }

// Pagination: the request changes each turn.
func paginate(ctx context.Context) error {
	token := ""
	for {
		p, err := list(ctx, token)
		if err != nil {
			return err
		}
		if p.next == "" {
			return nil
		}
		token = p.next
		time.Sleep(100 * time.Millisecond)
	}
}

// A worker takes a new item each turn.
func worker(ctx context.Context, jobs <-chan string) {
	for j := range jobs {
		_ = j
		if err := call(ctx); err != nil {
			time.Sleep(time.Second)
		}
	}
}

// A reconnect loop of a long-lived stream never leaves on success.
func reconnect(ctx context.Context) {
	for {
		if err := call(ctx); err != nil {
			time.Sleep(time.Second)
			continue
		}
		serve(ctx)
	}
}

func serve(ctx context.Context) {}

// A fallback chain: each model once, no waiting.
func fallbackChain(ctx context.Context, models []string) error {
	var err error
	for _, m := range models { // want `fallback`
		_ = m
		if err = call(ctx); err == nil {
			return nil
		}
	}
	return err
}

// Batch work over items, a pause between them.
func batch(ctx context.Context, items []string) error {
	for range items {
		if err := call(ctx); err != nil {
			return err
		}
		time.Sleep(time.Second)
	}
	return nil
}

// A loop bounded by the clock, with a log line that tests the counter.
func clockBound(ctx context.Context, verbose bool) error {
	deadline := time.Now().Add(30 * time.Second)
	attempt := 0
	for time.Now().Before(deadline) { // want `retry loop: attempts=unbounded waits=50ms.* maxelapsed=30s`
		err := call(ctx)
		if err == nil {
			if verbose && attempt > 0 {
				println(attempt)
			}
			return nil
		}
		attempt++
		time.Sleep(50 * time.Millisecond)
	}
	return errors.New("timeout")
}

// A backoff ticker drives the attempts (as alertmanager's notify stage does).
func tickerRetry(ctx context.Context) error {
	tick := backoff.NewTicker(backoff.NewExponentialBackOff())
	defer tick.Stop()
	for { // want `retry loop: attempts=unbounded waits=500ms,750ms,1.125s,1.6875s,2.53125s jitter=yes deadline=yes cancellable=yes`
		select {
		case <-tick.C:
			err := call(ctx)
			if err != nil {
				continue
			}
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// A wait that a quit channel can end is cancellable.
func quitChan(ctx context.Context, quit <-chan struct{}) error {
	var err error
	for i := 0; i < 3; i++ { // want `retry loop: attempts=3 waits=1s,1s jitter=no deadline=no cancellable=yes`
		if err = call(ctx); err == nil {
			return nil
		}
		select {
		case <-time.After(time.Second):
		case <-quit:
			return err
		}
	}
	return err
}

// Building the request may fail too; its check is not the operation's.
func buildThenCall(ctx context.Context, c *http.Client) (*http.Response, error) {
	for i := 0; i < 3; i++ { // want `retry loop: attempts=3 waits=1s,2s jitter=no`
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://svc/x", nil)
		if err != nil {
			return nil, err
		}
		time.Sleep(time.Duration(i) * time.Second)
		resp, err := c.Do(req)
		if err == nil {
			return resp, nil
		}
	}
	return nil, errors.New("exhausted")
}

const maxRetries = 8

type provider struct{}

func (a *provider) shouldRetry(attempts int, err error) (bool, int64, error) {
	if attempts > maxRetries {
		return false, 0, errors.New("maximum retry attempts reached")
	}
	return true, 100, nil
}

// The bound and the decision live in a helper; the wait continues from
// inside a select (as opencode's provider does).
func (a *provider) send(ctx context.Context) error {
	attempts := 0
	for { // want `retry loop: attempts=9 waits=100ms,100ms,100ms,100ms,100ms,100ms,100ms,100ms jitter=no deadline=yes cancellable=yes retryafter=no`
		attempts++
		err := call(ctx)
		if err != nil {
			retry, after, retryErr := a.shouldRetry(attempts, err)
			if retryErr != nil {
				return retryErr
			}
			if retry {
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(time.Duration(after) * time.Millisecond):
					continue
				}
			}
			return err
		}
		return nil
	}
}

// The transport error ends the loop; a 429 status is retried.
func statusOnly(ctx context.Context) (*http.Response, error) {
	for i := 0; i < 3; i++ { // want `retry loop: attempts=3 waits=1s,1s`
		resp, err := get(ctx)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusTooManyRequests {
			return resp, nil
		}
		time.Sleep(time.Second)
	}
	return nil, errors.New("rate limited")
}

// ctx.Err() tested in place is not the operation.
func errInPlace(ctx context.Context) error {
	var err error
	for i := 0; i < 3; i++ { // want `retry loop: attempts=3 waits=2s,2s`
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err = call(ctx); err == nil {
			return nil
		}
		time.Sleep(2 * time.Second)
	}
	return err
}

// A log argument attempt+1 is not a step of the counter.
func logStep(ctx context.Context) error {
	for attempt := 0; ; attempt++ { // want `retry loop: attempts=4 waits=1s,2s,4s jitter=no`
		err := call(ctx)
		if err == nil {
			return nil
		}
		println("attempt", attempt+1)
		if attempt >= 3 {
			return err
		}
		time.Sleep(time.Second << attempt)
	}
}

var retryable = []int{429, 500, 502, 503}

func contains(list []int, x int) bool {
	for _, y := range list {
		if y == x {
			return true
		}
	}
	return false
}

// A status test of no visible direction: the branch decides.
func statusSet(ctx context.Context) (*http.Response, error) {
	for i := 0; i < 3; i++ { // want `retry loop: attempts=3 waits=1s,1s`
		resp, err := get(ctx)
		if err != nil {
			return nil, err
		}
		code := resp.StatusCode
		if !contains(retryable, code) {
			return resp, nil
		}
		time.Sleep(time.Second)
	}
	return nil, errors.New("exhausted")
}

// switch on the status.
func statusSwitch(ctx context.Context) (*http.Response, error) {
	for i := 0; i < 4; i++ { // want `retry loop: attempts=4 waits=500ms,500ms,500ms`
		resp, err := get(ctx)
		if err != nil {
			return nil, err
		}
		switch resp.StatusCode {
		case http.StatusTooManyRequests, http.StatusServiceUnavailable:
			time.Sleep(500 * time.Millisecond)
			continue
		}
		return resp, nil
	}
	return nil, errors.New("exhausted")
}

type job struct{ Status string }

func readJob(ctx context.Context) (*job, error) { return &job{}, nil }

// A switch on a job's state is a poll, not a status-code retry (go-tfe's
// Logs loops).
func pollJobState(ctx context.Context) error {
	for {
		j, err := readJob(ctx)
		if err != nil {
			return err
		}
		switch j.Status {
		case "queued", "running":
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Second):
				continue
			}
		}
		err = call(ctx)
		if err != nil {
			return err
		}
		return nil
	}
}
