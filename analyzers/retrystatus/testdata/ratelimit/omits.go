package ratelimit

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// transient enumerates the answers worth another attempt and leaves out
// 429: a rate limit ends the retry at once.
var transient = map[int]bool{
	http.StatusInternalServerError: true,
	http.StatusBadGateway:          true,
	http.StatusServiceUnavailable:  true,
	http.StatusGatewayTimeout:      true,
}

func get(ctx context.Context, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	return http.DefaultClient.Do(req)
}

func Omitted(ctx context.Context, url string) (*http.Response, error) { // want Omitted:`retry loop at ratelimit/omits.go:28 gives up on 529`
	for attempt := range 4 {
		resp, err := get(ctx, url)
		if err != nil {
			return nil, err
		}
		if !transient[resp.StatusCode] { // want `retry decision retries 500, 502, 503, 504 but not 429 \(too many requests\): a rate limit ends the retry at once`
			return resp, nil
		}
		resp.Body.Close()
		if !sleepCtx(ctx, time.Second<<attempt) {
			return nil, ctx.Err()
		}
	}
	return nil, errors.New("gave up")
}

func OmittedSwitch(ctx context.Context, url string) (*http.Response, error) { // want OmittedSwitch:`retry loop at ratelimit/omits.go:45 gives up on 529`
	for attempt := range 4 {
		resp, err := get(ctx, url)
		if err != nil {
			return nil, err
		}
		switch resp.StatusCode {
		case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout: // want `retry decision retries 500, 502, 503, 504 but not 429`
			resp.Body.Close()
			if !sleepCtx(ctx, time.Second<<attempt) {
				return nil, ctx.Err()
			}
			continue
		}
		return resp, nil
	}
	return nil, errors.New("gave up")
}

// One 5xx code is a choice about that code: quiet.
func OnlyUnavailable(ctx context.Context, url string) (*http.Response, error) {
	for attempt := range 4 {
		resp, err := get(ctx, url)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusServiceUnavailable {
			return resp, nil
		}
		resp.Body.Close()
		if !sleepCtx(ctx, time.Second<<attempt) {
			return nil, ctx.Err()
		}
	}
	return nil, errors.New("gave up")
}

// 429 has a branch of its own before the list: quiet.
func SeparateLimit(ctx context.Context, url string) (*http.Response, error) { // want SeparateLimit:`retry loop at ratelimit/omits.go:83 gives up on 529`
	for attempt := range 4 {
		resp, err := get(ctx, url)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode == http.StatusTooManyRequests {
			resp.Body.Close()
			if !sleepCtx(ctx, time.Minute) {
				return nil, ctx.Err()
			}
			continue
		}
		if !transient[resp.StatusCode] {
			return resp, nil
		}
		resp.Body.Close()
		if !sleepCtx(ctx, time.Second<<attempt) {
			return nil, ctx.Err()
		}
	}
	return nil, errors.New("gave up")
}

// The list is of the server's own failures in a handler's fallback to
// another backend, not a retry: quiet.
func Proxy(w http.ResponseWriter, r *http.Request) {
	resp, err := get(r.Context(), "http://primary")
	if err == nil && transient[resp.StatusCode] {
		resp.Body.Close()
		resp, err = get(r.Context(), "http://secondary")
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	w.WriteHeader(resp.StatusCode)
}
