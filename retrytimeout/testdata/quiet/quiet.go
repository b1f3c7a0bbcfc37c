// Package quiet holds loops that look like retries and are not, and
// retries that already do everything right.
package quiet

import (
	"context"
	"encoding/json"
	"errors"
	"log"
	"math/rand"
	"net/http"
	"time"

	"example.com/t/remote"
)

// A ticker: a poller, not a retry.
func poll(ctx context.Context, c *http.Client, url string, seen func(int)) {
	t := time.NewTicker(5 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		resp, err := remote.Search(ctx, c, url)
		if err != nil {
			log.Printf("poll: %v", err)
			continue
		}
		seen(resp.StatusCode)
		resp.Body.Close()
	}
}

// A poller: it repeats after a successful read until the job is done, and
// gives up at the first error.
func waitForJob(c *http.Client, url string) error {
	for {
		resp, err := c.Get(url)
		if err != nil {
			return err
		}
		var job struct{ State string }
		err = json.NewDecoder(resp.Body).Decode(&job)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if job.State == "done" {
			return nil
		}
		time.Sleep(2 * time.Second)
	}
}

type page struct {
	items []string
	next  string
}

// Pagination: one request per page, no waits.
func listAll(ctx context.Context, get func(context.Context, string) (page, error)) ([]string, error) {
	var all []string
	token := ""
	for {
		p, err := get(ctx, token)
		if err != nil {
			return nil, err
		}
		all = append(all, p.items...)
		if p.next == "" {
			return all, nil
		}
		token = p.next
	}
}

// A handler writing a 503 is not a client retrying one.
func handler(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("X-Overloaded") != "" {
		w.Header().Set("Retry-After", "5")
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusTooManyRequests)
}

// Rate limiting of our own: a pause between sends, not between attempts.
func sendAll(ctx context.Context, c *http.Client, urls []string) {
	for _, u := range urls {
		if resp, err := remote.Search(ctx, c, u); err == nil {
			resp.Body.Close()
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// A local lock retried at a fixed interval: no remote service, no herd.
func lockFile(ctx context.Context, try func() error) error {
	for attempt := 0; attempt < 50; attempt++ {
		err := try()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return errors.New("still locked")
}

// Waiting for a server to come up: an unbounded poll at a constant
// interval, bounded by ctx.
func waitReady(ctx context.Context, c *http.Client, url string) error {
	for {
		resp, err := remote.Search(ctx, c, url)
		if err == nil {
			resp.Body.Close()
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// Retried at once, with no wait: nothing outlives the caller's deadline
// but the attempts, which ctx bounds.
func conflictRetry(ctx context.Context, c *http.Client, url string) error {
	for attempt := 0; attempt < 3; attempt++ {
		resp, err := remote.Search(ctx, c, url)
		if err == nil {
			resp.Body.Close()
			return nil
		}
	}
	return errors.New("conflict")
}

// An attempt-only retry whose sleep ignores ctx, silenced with a reason.
func ignored(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ {
		resp, err := remote.Search(ctx, c, url)
		if err == nil {
			return resp, nil
		}
		//retryvet:ignore retrytimeout a one-off probe at start-up; nobody waits on it
		time.Sleep(time.Duration(rand.Int63n(int64(time.Second << attempt))))
	}
	return nil, errors.New("down")
}

// Three attempts 10ms apart: a cancelled caller waits at most 20ms more,
// not worth a finding (a redis command retried in gin_common_library).
func shortSleeps(ctx context.Context, c *http.Client, req *http.Request) (*http.Response, error) {
	var err error
	for i := 0; i < 3; i++ {
		var resp *http.Response
		resp, err = c.Do(req.WithContext(ctx))
		if err == nil {
			return resp, nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return nil, err
}
