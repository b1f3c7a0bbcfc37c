package nowait

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"
)

func get(ctx context.Context, hc *http.Client, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	return hc.Do(req)
}

func retryAfter(resp *http.Response) time.Duration {
	s, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
	return time.Duration(s) * time.Second
}

// Throttled waits out a 429 but sends again at once after a 5xx: the wait
// is on the 429's path only.
func Throttled(ctx context.Context, hc *http.Client, url string) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ { // want `retry loop retries every 5xx with no wait between attempts \(the wait at nowait/paths.go:\d+ is on another path\): its 4 attempts go out back to back`
		resp, err := get(ctx, hc, url)
		if err != nil {
			return nil, err
		}
		switch {
		case resp.StatusCode == http.StatusTooManyRequests:
			resp.Body.Close()
			time.Sleep(retryAfter(resp))
			continue
		case resp.StatusCode >= 500:
			resp.Body.Close()
			continue
		}
		return resp, nil
	}
	return nil, errors.New("gave up")
}

// Fetch sends again by calling itself: after a 429 once the Retry-After
// has passed, after a 5xx at once, counting the attempts in a parameter.
func Fetch(ctx context.Context, hc *http.Client, url string, attempt int) (*http.Response, error) { // want Fetch:`retry by recursion at nowait/paths.go:48 gives up on 529 \(lists 500, 502, 503, 504 at nowait/paths.go:58\)`
	resp, err := get(ctx, hc, url)
	if err != nil {
		return nil, err
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests:
		resp.Body.Close()
		time.Sleep(retryAfter(resp))
		return Fetch(ctx, hc, url, attempt)
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		if attempt < 3 {
			resp.Body.Close()
			return Fetch(ctx, hc, url, attempt+1) // want `retry by recursion retries 500, 502, 503 and 504 with no wait between attempts \(the wait at nowait/paths.go:\d+ is on another path\)`
		}
	}
	return resp, nil
}

// FetchPaced waits before it calls itself again: quiet.
func FetchPaced(ctx context.Context, hc *http.Client, url string, attempt int) (*http.Response, error) {
	resp, err := get(ctx, hc, url)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 500 && attempt < 3 {
		resp.Body.Close()
		time.Sleep(time.Duration(attempt+1) * time.Second)
		return FetchPaced(ctx, hc, url, attempt+1)
	}
	return resp, nil
}

// Spaced waits at the top of every turn but the first, under a test of
// the attempt, not of the status: every retry waits. Quiet.
func Spaced(ctx context.Context, hc *http.Client, url string) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ {
		if attempt > 0 {
			time.Sleep(time.Second)
		}
		resp, err := get(ctx, hc, url)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode >= 500 {
			resp.Body.Close()
			continue
		}
		return resp, nil
	}
	return nil, errors.New("gave up")
}

// Tail waits at the end of the turn, which a 5xx reaches by going on
// rather than by continue: quiet.
func Tail(ctx context.Context, hc *http.Client, url string) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ {
		resp, err := get(ctx, hc, url)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode < 500 {
			return resp, nil
		}
		resp.Body.Close()
		time.Sleep(time.Second)
	}
	return nil, errors.New("gave up")
}

// attempts hands out attempt numbers, waiting between them: a loop over
// it waits at its head on every turn.
func attempts(ctx context.Context, n int) <-chan int {
	ch := make(chan int)
	go func() {
		defer close(ch)
		for i := 0; i < n; i++ {
			select {
			case ch <- i:
			case <-ctx.Done():
				return
			}
			select {
			case <-time.After(time.Duration(1<<i) * 100 * time.Millisecond):
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch
}

// Handed waits for each attempt number before it sends: quiet.
func Handed(ctx context.Context, hc *http.Client, url string) (*http.Response, error) {
	for range attempts(ctx, 4) {
		resp, err := get(ctx, hc, url)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode >= 500 {
			resp.Body.Close()
			continue
		}
		return resp, nil
	}
	return nil, errors.New("gave up")
}
