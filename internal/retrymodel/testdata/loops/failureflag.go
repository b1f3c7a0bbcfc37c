package loops

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// Failure flags: a bool declared in the loop body, false at the start of
// each turn, that the body sets only where the operation failed. The loop
// leaves when it is not set, so it is a classifier written out.

type transport struct {
	rt        http.RoundTripper
	max       int
	retryable []int
}

// The flag is set under a test of the error and under a status match.
func (t *transport) send(req *http.Request) (*http.Response, error) {
	var resp *http.Response
	var err error
	for i := 0; i <= t.max; i++ { // want `retry loop: attempts=\? waits=250ms.* classifier`
		var again bool
		resp, err = t.rt.RoundTrip(req)
		if err != nil {
			if !errors.Is(err, context.Canceled) {
				again = true
			}
		} else {
			for _, code := range t.retryable {
				if resp.StatusCode == code {
					again = true
				}
			}
		}
		if !again {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	return resp, err
}

// The flag holds a classifier's answer and the loop goes round while it
// is set.
func sendRetryable(ctx context.Context, c *http.Client, req *http.Request) error {
	for n := 0; n < 3; n++ { // want `retry loop: attempts=3 waits=1s,1s jitter=no`
		retry := false
		resp, err := c.Do(req)
		if err != nil {
			retry = temporary(err)
		}
		if retry {
			time.Sleep(time.Second)
			continue
		}
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	}
	return errors.New("gave up")
}

func temporary(err error) bool {
	var te interface{ Temporary() bool }
	return errors.As(err, &te) && te.Temporary()
}

// Lookalike: pagination. The flag says there is more to read, which is
// set on success; each turn asks for the next page.
func pages(c *http.Client, base string) ([]string, error) {
	var out []string
	next := base
	for i := 0; i < 10; i++ {
		more := false
		resp, err := c.Get(next)
		if err != nil {
			return nil, err
		}
		if link := resp.Header.Get("Link"); link != "" {
			more = true
			next = link
		}
		resp.Body.Close()
		out = append(out, next)
		if !more {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	return out, nil
}

// Lookalike: a readiness wait. The flag is set when the service answered
// but is not ready yet, a state of a successful call.
func waitReady(c *http.Client, url string) error {
	for i := 0; i < 30; i++ {
		pending := false
		resp, err := c.Get(url)
		if err != nil {
			return err
		}
		if resp.Header.Get("X-State") != "ready" {
			pending = true
		}
		resp.Body.Close()
		if !pending {
			return nil
		}
		time.Sleep(time.Second)
	}
	return errors.New("not ready")
}

// Lookalike: the flag is declared once for the whole loop, so a failure in
// one turn says nothing of the next; the loop is a batch that keeps going.
func sendAll(c *http.Client, reqs []*http.Request) bool {
	failed := false
	for i := 0; i < len(reqs); i++ {
		resp, err := c.Do(reqs[i])
		if err != nil {
			failed = true
			continue
		}
		resp.Body.Close()
	}
	return failed
}
