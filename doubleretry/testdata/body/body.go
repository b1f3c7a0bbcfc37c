// Package body holds retries that send again a request whose body the
// first attempt read to its end, beside retries that build the request in
// each attempt, give the body back (GetBody, a seek), hand the request to
// a helper, or send no body (nil, or a body variable never given one).
package body

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/sethvargo/go-retry"
)

func pause(ctx context.Context, i int) error {
	t := time.NewTimer(time.Duration(1<<i)*time.Second + time.Duration(time.Now().UnixNano()%int64(time.Second)))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

var errGaveUp = errors.New("gave up")

// Upload builds its request once and sends it up to 3 times.
func Upload(ctx context.Context, hc *http.Client, url string, payload []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, url, bytes.NewReader(payload))
	if err != nil {
		return err
	}
	for i := 0; i < 3; i++ {
		resp, err := hc.Do(req) // want `the PUT request built at body/body.go:34 is sent again by the retry loop at body/body.go:38 with the body the first attempt read to its end: each of its 2 retries sends an empty body \(net/http refuses it, ContentLength with Body length 0, or the server gets nothing\); build the request in each attempt, or set req.Body from req.GetBody\(\) before each send`
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

// Notify does the same inside a go-retry closure.
func Notify(ctx context.Context, hc *http.Client, url, msg string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(msg))
	if err != nil {
		return err
	}
	b := retry.WithMaxRetries(4, retry.WithJitter(200*time.Millisecond, retry.NewExponential(time.Second)))
	return retry.Do(ctx, b, func(ctx context.Context) error {
		resp, err := hc.Do(req) // want `the POST request built at body/body.go:55 is sent again by the go-retry Do at body/body.go:60 with the body the first attempt read to its end: each of its 4 retries sends`
		if err != nil {
			return retry.RetryableError(err)
		}
		return resp.Body.Close()
	})
}

// Fresh builds the request in each attempt: quiet.
func Fresh(ctx context.Context, hc *http.Client, url string, payload []byte) error {
	for i := 0; i < 3; i++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPut, url, bytes.NewReader(payload))
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

// Rewound sets the body back from GetBody before each send: quiet.
func Rewound(ctx context.Context, hc *http.Client, url string, payload []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, url, bytes.NewReader(payload))
	if err != nil {
		return err
	}
	for i := 0; i < 3; i++ {
		if i > 0 {
			body, err := req.GetBody()
			if err != nil {
				return err
			}
			req.Body = body
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

// Seeked seeks its reader back before each send: quiet.
func Seeked(ctx context.Context, hc *http.Client, url string, payload []byte) error {
	r := bytes.NewReader(payload)
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, url, io.NopCloser(r))
	if err != nil {
		return err
	}
	for i := 0; i < 3; i++ {
		_, _ = r.Seek(0, io.SeekStart) // a reader's seek cannot fail at 0
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

// Get sends no body: repeating it repeats it. Quiet.
func Get(ctx context.Context, hc *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	for i := 0; i < 3; i++ {
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

// Token posts with a body variable declared and never given a value: a
// nil io.ReadWriter, no body at all. Quiet.
func Token(ctx context.Context, hc *http.Client, url string) error {
	var buf io.ReadWriter
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, buf)
	if err != nil {
		return err
	}
	for i := 0; i < 3; i++ {
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

// temporary is what the package's own retry helper retries.
type temporary interface{ Temporary() bool }

// try is the package's own retry helper: it runs fn up to attempts times
// while fn fails with a temporary error, waiting between attempts.
func try(ctx context.Context, attempts int, fn func() error) error {
	var err error
	for i := 0; i < attempts; i++ {
		if err = fn(); err == nil {
			return nil
		}
		if t, ok := err.(temporary); !ok || !t.Temporary() {
			return err
		}
		if werr := pause(ctx, i); werr != nil {
			return werr
		}
	}
	return err
}

// Create builds its POST once, outside the closure it hands to try: every
// retry try makes sends the buffer the first attempt drained.
func Create(ctx context.Context, hc *http.Client, url string, payload []byte) error {
	var buf bytes.Buffer
	buf.Write(payload)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, &buf)
	if err != nil {
		return err
	}
	return try(ctx, 3, func() error {
		resp, err := hc.Do(req) // want `the POST request built at body/body.go:\d+ is sent again by the retry helper body.try at body/body.go:\d+ with the body the first attempt read to its end: every retry sends`
		if err != nil {
			return err
		}
		return resp.Body.Close()
	})
}

// CreateFresh builds the request inside the closure, once per attempt:
// quiet.
func CreateFresh(ctx context.Context, hc *http.Client, url string, payload []byte) error {
	return try(ctx, 3, func() error {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		return resp.Body.Close()
	})
}

// CreateCopy gives its request the caller's context with WithContext, a
// copy that shares the body: the body is still drained by the first try.
func CreateCopy(ctx context.Context, hc *http.Client, url string, payload []byte) error {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return err
	}
	req = req.WithContext(ctx)
	return try(ctx, 3, func() error {
		resp, err := hc.Do(req) // want `the POST request built at body/body.go:\d+ is sent again by the retry helper body.try at body/body.go:\d+ with the body the first attempt read to its end: every retry sends`
		if err != nil {
			return err
		}
		return resp.Body.Close()
	})
}

// CreateRebuilt gives the same variable a new request in every attempt:
// quiet.
func CreateRebuilt(ctx context.Context, hc *http.Client, url string, payload []byte) error {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return err
	}
	return try(ctx, 3, func() error {
		req, err = http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		return resp.Body.Close()
	})
}
