package body

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/sethvargo/go-retry"
)

// A retry that builds its request in each attempt around a reader made
// before the retry: the first attempt reads the reader to its end.

type sender struct{ hc *http.Client }

// send is handed its body by its callers; each attempt wraps the same one.
func (s *sender) send(ctx context.Context, method, url string, body io.Reader) error {
	for i := 0; i < 4; i++ {
		req, err := http.NewRequestWithContext(ctx, method, url, body) // want `the HTTP request built in each attempt of the retry loop at body/reader.go:22 takes its body from body, a reader made before the retry: the first attempt reads it to its end, so each of its 3 retries sends an empty body \(net/http refuses it, ContentLength with Body length 0, or the server gets nothing\); make the reader in each attempt \(bytes.NewReader\(data\)\), or seek body back before each send`
		if err != nil {
			return err
		}
		resp, err := s.hc.Do(req)
		if err == nil && resp.StatusCode < 500 {
			return resp.Body.Close()
		}
		if resp != nil {
			resp.Body.Close()
		}
		if werr := pause(ctx, i); werr != nil {
			return werr
		}
	}
	return errGaveUp
}

// Post gives send a buffer.
func (s *sender) Post(ctx context.Context, url string, doc []byte) error {
	return s.send(ctx, http.MethodPost, url, bytes.NewBuffer(doc))
}

type hooked struct{ hc *http.Client }

func (h *hooked) roundTrip(req *http.Request, token string) (*http.Response, error) {
	req.Header.Set("Authorization", "Bearer "+token)
	return h.hc.Do(req)
}

// Publish makes its reader once and sends it through a helper that is not
// shaped like Do.
func (h *hooked) Publish(ctx context.Context, url, token, event string) error {
	rd := strings.NewReader(event)
	for i := 0; i < 3; i++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, rd) // want `the POST request built in each attempt of the retry loop at body/reader.go:57 takes its body from rd, a reader made before the retry`
		if err != nil {
			return err
		}
		resp, err := h.roundTrip(req, token)
		if err == nil && resp.StatusCode < 500 {
			return resp.Body.Close()
		}
		if resp != nil {
			resp.Body.Close()
		}
		if werr := pause(ctx, i); werr != nil {
			return werr
		}
	}
	return errGaveUp
}

// Deliver does the same inside a go-retry closure.
func Deliver(ctx context.Context, hc *http.Client, url string, doc []byte) error {
	rd := bytes.NewReader(doc)
	b := retry.WithMaxRetries(2, retry.WithJitter(100*time.Millisecond, retry.NewExponential(time.Second)))
	return retry.Do(ctx, b, func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodPut, url, rd) // want `the PUT request built in each attempt of the go-retry Do at body/reader.go:80 takes its body from rd, a reader made before the retry: the first attempt reads it to its end, so each of its 2 retries sends an empty body`
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err != nil {
			return retry.RetryableError(err)
		}
		return resp.Body.Close()
	})
}

// FreshReader makes the reader in each attempt: quiet.
func FreshReader(ctx context.Context, hc *http.Client, url string, doc []byte) error {
	for i := 0; i < 3; i++ {
		rd := bytes.NewReader(doc)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, rd)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err == nil && resp.StatusCode < 500 {
			return resp.Body.Close()
		}
		if resp != nil {
			resp.Body.Close()
		}
		if werr := pause(ctx, i); werr != nil {
			return werr
		}
	}
	return errGaveUp
}

// SeekBack seeks the reader back before each send: quiet.
func SeekBack(ctx context.Context, hc *http.Client, url string, doc []byte) error {
	rd := bytes.NewReader(doc)
	for i := 0; i < 3; i++ {
		if _, err := rd.Seek(0, io.SeekStart); err != nil {
			return err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, rd)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err == nil && resp.StatusCode < 500 {
			return resp.Body.Close()
		}
		if resp != nil {
			resp.Body.Close()
		}
		if werr := pause(ctx, i); werr != nil {
			return werr
		}
	}
	return errGaveUp
}

type getter struct{ hc *http.Client }

// fetch takes a body parameter its callers only ever pass nil: quiet.
func (g *getter) fetch(ctx context.Context, url string, body io.Reader) error {
	for i := 0; i < 3; i++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, body)
		if err != nil {
			return err
		}
		resp, err := g.hc.Do(req)
		if err == nil && resp.StatusCode < 500 {
			return resp.Body.Close()
		}
		if resp != nil {
			resp.Body.Close()
		}
		if werr := pause(ctx, i); werr != nil {
			return werr
		}
	}
	return errGaveUp
}

// Status fetches with no body.
func (g *getter) Status(ctx context.Context, url string) error { return g.fetch(ctx, url, nil) }

// Refilled gives the buffer its bytes again in each attempt: quiet.
func Refilled(ctx context.Context, hc *http.Client, url string, doc []byte) error {
	var buf bytes.Buffer
	for i := 0; i < 3; i++ {
		buf.Reset()
		buf.Write(doc)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, &buf)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err == nil && resp.StatusCode < 500 {
			return resp.Body.Close()
		}
		if resp != nil {
			resp.Body.Close()
		}
		if werr := pause(ctx, i); werr != nil {
			return werr
		}
	}
	return errGaveUp
}

type prepared struct{ hc *http.Client }

// prepare encodes v into a new buffer on each call.
func (p *prepared) prepare(ctx context.Context, url string, v any) (*http.Request, error) {
	body := &bytes.Buffer{}
	if _, err := body.WriteString(fmt.Sprint(v)); err != nil {
		return nil, err
	}
	return http.NewRequestWithContext(ctx, http.MethodPost, url, body)
}

// Write builds its request in each attempt through prepare, whose reader
// is new each time: quiet.
func (p *prepared) Write(ctx context.Context, url string, v any) error {
	for i := 0; i < 3; i++ {
		req, err := p.prepare(ctx, url, v)
		if err != nil {
			return err
		}
		resp, err := p.hc.Do(req)
		if err == nil && resp.StatusCode < 500 {
			return resp.Body.Close()
		}
		if resp != nil {
			resp.Body.Close()
		}
		if werr := pause(ctx, i); werr != nil {
			return werr
		}
	}
	return errGaveUp
}
