package shapes

import (
	"math/rand"
	"net/http"
	"strings"
	"time"
)

// retryTransport re-sends a request through the transport it wraps. It
// waits at the top of every attempt after the first, and the bound is
// checked right after the send: the last attempt's answer is returned as
// it is.
type retryTransport struct {
	next  http.RoundTripper
	limit int
	base  time.Duration
}

func (t *retryTransport) pause(n int) {
	d := t.base << (n - 1)
	d += time.Duration(rand.Int63n(int64(d)/5 + 1))
	time.Sleep(d)
}

func (t *retryTransport) RoundTrip(req *http.Request) (resp *http.Response, err error) {
	tries := 0
	for { // want `retry loop: attempts=\? jitter=yes deadline=no cancellable=no retryafter=no`
		if tries > 0 {
			t.pause(tries)
		}
		resp, err = t.next.RoundTrip(req)
		tries++
		if tries > t.limit {
			return
		}
		if err != nil {
			switch {
			case strings.Contains(err.Error(), "connection reset"):
				continue
			default:
				return
			}
		}
		switch {
		case resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusTooManyRequests:
			continue
		default:
			return
		}
	}
}

// A poll whose switch leaves on every path is still a poll: the answer
// that goes round again is a success (the job still running).
func (t *retryTransport) waitJob(req *http.Request) error {
	for {
		resp, err := t.next.RoundTrip(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		switch resp.Header.Get("Job-State") {
		case "done":
			return nil
		case "failed":
			return errBusy
		default:
			time.Sleep(t.base)
			continue
		}
	}
}
