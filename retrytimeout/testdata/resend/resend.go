// Package resend: a write sent again because its answer lacks what
// success needs (an upload status header) is a retry, whatever the
// transport said; the same test on a read that asks again is a poll.
package resend

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"
)

const (
	maxRetryCount     = 3
	initialRetryDelay = time.Second
	delayMultiplier   = 2
)

// upload re-sends a chunk whose answer has no X-Goog-Upload-Status. ^ is
// XOR, so the waits are 2s, 3s (and 0s after the last attempt), fixed.
func upload(ctx context.Context, c *http.Client, url string, chunk []byte) (*http.Response, error) {
	var resp *http.Response
	for attempt := 0; attempt < maxRetryCount; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(chunk))
		if err != nil {
			return nil, err
		}
		resp, err = c.Do(req)
		if err != nil {
			return nil, fmt.Errorf("upload: %w", err)
		}
		if resp.Header.Get("X-Goog-Upload-Status") != "" {
			break
		}
		resp.Body.Close()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(initialRetryDelay * time.Duration(delayMultiplier^attempt)): // want `no jitter: retry loop waits 2s, 3s with no random part`
		}
	}
	return resp, nil
}

// putPart: a PUT whose answer carries no ETag is sent again.
func putPart(ctx context.Context, c *http.Client, url string, part []byte) (string, error) {
	for attempt := 0; attempt < 4; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPut, url, bytes.NewReader(part))
		if err != nil {
			return "", err
		}
		resp, err := c.Do(req)
		if err != nil {
			return "", err
		}
		resp.Body.Close()
		if etag := resp.Header.Get("ETag"); len(resp.Header.Values("ETag")) > 0 {
			return etag, nil
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(time.Duration(attempt+1) * time.Second): // want `no jitter: retry loop waits 1s, 2s, 3s with no random part`
		}
	}
	return "", fmt.Errorf("no ETag")
}

// uploadJittered draws each wait at random: quiet.
func uploadJittered(ctx context.Context, c *http.Client, url string, chunk []byte) (*http.Response, error) {
	var resp *http.Response
	for attempt := 0; attempt < maxRetryCount; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(chunk))
		if err != nil {
			return nil, err
		}
		resp, err = c.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.Header.Get("X-Goog-Upload-Status") != "" {
			break
		}
		resp.Body.Close()
		d := initialRetryDelay << attempt
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(rand.Int64N(int64(d)))):
		}
	}
	return resp, nil
}

// pollResult asks for an operation's result until its header is there: a
// GET with no body re-reads state, a poll, quiet.
func pollResult(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for attempt := 0; attempt < 10; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := c.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.Header.Get("X-Result-Location") != "" {
			return resp, nil
		}
		resp.Body.Close()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
	return nil, fmt.Errorf("no result")
}

// submitUntilFinal re-sends until the server reports a particular state
// ("final"): a state test, not a missing part, so it is not taken for a
// retry here. Quiet.
func submitUntilFinal(ctx context.Context, c *http.Client, url string, body []byte) (*http.Response, error) {
	for attempt := 0; attempt < 5; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		resp, err := c.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.Header.Get("X-Status") == "final" {
			return resp, nil
		}
		resp.Body.Close()
		time.Sleep(time.Second)
	}
	return nil, fmt.Errorf("not final")
}
