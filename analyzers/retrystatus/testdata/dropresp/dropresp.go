// Package dropresp holds retry loops that go round again with the failed
// attempt's response body unclosed, next to loops that close, read or
// hand on the body, retry only failed sends, or are no retry at all.
package dropresp

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"
)

func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

var errGaveUp = errors.New("gave up")

// A 5xx sends the loop round again with the body open.
func getStatus(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := c.Do(req)
		if err != nil {
			if err := pause(ctx, time.Second); err != nil {
				return nil, err
			}
			continue // a failed send has no body: quiet
		}
		if resp.StatusCode >= 500 {
			if err := pause(ctx, time.Second); err != nil {
				return nil, err
			}
			continue // want `retry loop at .* continues here without closing resp.Body: .* up to 4 connections`
		}
		return resp, nil
	}
	return nil, errGaveUp
}

// The loop breaks on success and falls through to the next attempt
// otherwise; only the last response reaches the caller.
func getLast(ctx context.Context, c *http.Client, req *http.Request) (*http.Response, error) {
	var resp *http.Response
	var err error
	for i := 0; i < 3; i++ {
		resp, err = c.Do(req)
		if err == nil && resp.StatusCode < 500 {
			break
		}
		if werr := pause(ctx, time.Duration(i+1)*time.Second); werr != nil { // want `retry loop at .* goes round again here without closing resp.Body: .* up to 2 connections`
			return nil, werr
		}
	}
	return resp, err
}

func transient(resp *http.Response) bool {
	return resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
}

// The classifier in a helper only reads the status.
func getHelper(ctx context.Context, c *http.Client, req *http.Request) (*http.Response, error) {
	for attempt := 0; attempt < 5; attempt++ {
		resp, err := c.Do(req)
		if err != nil { // want `gives up on the first error of the send itself`
			return nil, err
		}
		if transient(resp) {
			if err := pause(ctx, 2*time.Second); err != nil {
				return nil, err
			}
			continue // want `continues here without closing resp.Body: .* up to 5 connections`
		}
		return resp, nil
	}
	return nil, errGaveUp
}

// A transport that retries 503 by calling the next one again.
type retryTransport struct{ next http.RoundTripper }

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	for attempt := 1; ; attempt++ {
		resp, err := t.next.RoundTrip(req)
		if err != nil || resp.StatusCode != http.StatusServiceUnavailable || attempt == 3 {
			return resp, err
		}
		if err := pause(req.Context(), 500*time.Millisecond); err != nil { // want `goes round again here without closing resp.Body: .* up to 2 connections`
			return nil, err
		}
	}
}

// Quiet: the body is closed before the next attempt.
func getClosed(ctx context.Context, c *http.Client, req *http.Request) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ {
		resp, err := c.Do(req)
		if err != nil { // want `gives up on the first error of the send itself`
			return nil, err
		}
		if resp.StatusCode >= 500 {
			resp.Body.Close()
			if err := pause(ctx, time.Second); err != nil {
				return nil, err
			}
			continue
		}
		return resp, nil
	}
	return nil, errGaveUp
}

func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// Quiet: a helper drains and closes it.
func getDrained(ctx context.Context, c *http.Client, req *http.Request) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ {
		resp, err := c.Do(req)
		if err != nil { // want `gives up on the first error of the send itself`
			return nil, err
		}
		if resp.StatusCode >= 500 {
			drain(resp)
			if err := pause(ctx, time.Second); err != nil {
				return nil, err
			}
			continue
		}
		return resp, nil
	}
	return nil, errGaveUp
}

// Quiet: the error body is read to the end for the message.
func getRead(ctx context.Context, c *http.Client, req *http.Request) ([]byte, error) {
	var last error
	for attempt := 0; attempt < 4; attempt++ {
		resp, err := c.Do(req)
		if err != nil { // want `gives up on the first error of the send itself`
			return nil, err
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		if resp.StatusCode >= 500 {
			last = errors.New(string(b))
			if err := pause(ctx, time.Second); err != nil {
				return nil, err
			}
			continue
		}
		return b, nil
	}
	return nil, last
}

// Quiet: the previous attempt's response is closed at the top of the next.
func getCloseAtTop(ctx context.Context, c *http.Client, req *http.Request) (*http.Response, error) {
	var resp *http.Response
	var err error
	for attempt := 0; attempt < 4; attempt++ {
		if resp != nil {
			resp.Body.Close()
		}
		resp, err = c.Do(req)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if werr := pause(ctx, time.Second); werr != nil {
			return nil, werr
		}
	}
	return resp, err
}

// Quiet: only failed sends are retried; every response is returned.
func getSendErrors(ctx context.Context, c *http.Client, req *http.Request) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ {
		resp, err := c.Do(req)
		if err == nil {
			return resp, nil
		}
		if werr := pause(ctx, time.Second); werr != nil {
			return nil, werr
		}
	}
	return nil, errGaveUp
}

// Quiet: pagination reads and closes every page.
func pages(ctx context.Context, c *http.Client, urls []string) ([][]byte, error) {
	var out [][]byte
	for _, u := range urls {
		resp, err := c.Get(u)
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// Quiet: a readiness wait closes what it gets.
func waitReady(ctx context.Context, c *http.Client, url string) error {
	for {
		resp, err := c.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if err := pause(ctx, time.Second); err != nil {
			return err
		}
	}
}

// A switch that leaves on every path: the 429 case goes round with the
// body open; the 5xx case closes it; nothing runs after the switch, so the
// end of the body is no way round.
func switchStatus(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for attempt := 0; attempt < 3; attempt++ {
		if attempt > 0 {
			if err := pause(ctx, time.Second); err != nil {
				return nil, err
			}
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := c.Do(req)
		if err != nil { // want `gives up on the first error of the send itself`
			return nil, err
		}
		switch {
		case resp.StatusCode == http.StatusTooManyRequests:
			continue // want `continues here without closing resp.Body: .* up to 3 connections`
		case resp.StatusCode >= 500:
			resp.Body.Close()
			continue
		default:
			return resp, nil
		}
	}
	return nil, errGaveUp
}

// Quiet: only a failed send reaches the next turn; the answer is closed
// on the branch that returns.
func waitServer(ctx context.Context, url string) error {
	for i := 0; i < 120; i++ {
		resp, err := http.Get(url)
		if err != nil {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(500 * time.Millisecond):
			}
		} else {
			_ = resp.Body.Close()
			return nil
		}
	}
	return errGaveUp
}

// The same shape with the answer's branch going round: an answer that is
// not 200 is dropped open.
func waitServerOK(ctx context.Context, url string) error {
	for i := 0; i < 5; i++ {
		resp, err := http.Get(url)
		if err != nil {
			return err
		} else if resp.StatusCode != http.StatusOK {
			if err := pause(ctx, time.Second); err != nil { // want `goes round again here without closing resp.Body`
				return err
			}
		} else {
			resp.Body.Close()
			return nil
		}
	}
	return errGaveUp
}
