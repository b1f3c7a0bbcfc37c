package cancelsrc

import (
	"io"
	"net/http"
	"time"
)

// retryTransport is an http.RoundTripper that retries: the request it is
// handed carries the caller's context, and a flag set on failure decides
// each turn.
type retryTransport struct {
	next    http.RoundTripper
	max     int
	backoff func(int) time.Duration
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var resp *http.Response
	var err error
	for i := 0; i <= t.max; i++ {
		var retry bool
		resp, err = t.next.RoundTrip(req)
		if err == io.ErrUnexpectedEOF {
			retry = true
		}
		if err == nil && resp.StatusCode == http.StatusServiceUnavailable { // want `retry-after ignored: retry loop retries 503 but waits on its own backoff`
			retry = true
			resp.Body.Close()
		}
		if !retry {
			break
		}
		time.Sleep(t.backoff(i)) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after req.Context\(\) is done`
	}
	return resp, err
}

// The same transport, waiting in a select on the request's context.
type politeTransport struct {
	next    http.RoundTripper
	max     int
	backoff func(int) time.Duration
}

func (t *politeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var resp *http.Response
	var err error
	for i := 0; i <= t.max; i++ {
		var retry bool
		resp, err = t.next.RoundTrip(req)
		if err == io.ErrUnexpectedEOF {
			retry = true
		}
		if !retry {
			break
		}
		select {
		case <-req.Context().Done():
			return nil, req.Context().Err()
		case <-time.After(t.backoff(i)):
		}
	}
	return resp, err
}
