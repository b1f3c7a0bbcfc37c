package body

import (
	"bytes"
	"io"
	"net/http"
	"time"
)

// A retrying transport that copies the request's body in every attempt:
// the first copy drains req.Body, the later ones get nothing.
type copying struct{ next http.RoundTripper }

func (t *copying) RoundTrip(req *http.Request) (*http.Response, error) {
	var resp *http.Response
	var err error
	for i := 0; i < 3; i++ {
		var b []byte
		if req.Body != nil {
			b, _ = io.ReadAll(req.Body) // want `the retry loop at body/drain.go:\d+ reads req.Body again in every attempt: the first attempt drains it, so each of its 2 retries sends an empty body`
		}
		clone := req.Clone(req.Context())
		clone.Body = io.NopCloser(bytes.NewReader(b))
		resp, err = t.next.RoundTrip(clone)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if resp != nil {
			resp.Body.Close()
		}
		time.Sleep(100 * time.Millisecond)
	}
	return resp, err
}

// Quiet: the body is read once, before the retry.
type copyingOnce struct{ next http.RoundTripper }

func (t *copyingOnce) RoundTrip(req *http.Request) (*http.Response, error) {
	var b []byte
	if req.Body != nil {
		b, _ = io.ReadAll(req.Body)
	}
	var resp *http.Response
	var err error
	for i := 0; i < 3; i++ {
		clone := req.Clone(req.Context())
		clone.Body = io.NopCloser(bytes.NewReader(b))
		resp, err = t.next.RoundTrip(clone)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if resp != nil {
			resp.Body.Close()
		}
		time.Sleep(100 * time.Millisecond)
	}
	return resp, err
}

// Quiet: the read in the loop puts a fresh reader back on req.
type restoring struct{ next http.RoundTripper }

func (t *restoring) RoundTrip(req *http.Request) (*http.Response, error) {
	var resp *http.Response
	var err error
	for i := 0; i < 3; i++ {
		b, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(b))
		clone := req.Clone(req.Context())
		clone.Body = io.NopCloser(bytes.NewReader(b))
		resp, err = t.next.RoundTrip(clone)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if resp != nil {
			resp.Body.Close()
		}
		time.Sleep(100 * time.Millisecond)
	}
	return resp, err
}
