package ratelimit

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// A client that treats every 4xx as the caller's fault: a rate limit falls
// in the range and ends the retry at once, while 5xx is waited out.
func ClientFault(ctx context.Context, url string) error {
	var last error
	for attempt := 0; attempt < 4; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			last = err
		} else {
			resp.Body.Close()
			if resp.StatusCode >= 400 && resp.StatusCode < 500 { // want `retry decision gives up on a range of codes, 429 \(too many requests\) among them, but retries 500, 502, 503, 504: a rate limit ends the retry at once`
				return fmt.Errorf("client error %d", resp.StatusCode)
			}
			if resp.StatusCode < 400 {
				return nil
			}
			last = fmt.Errorf("status %d", resp.StatusCode)
		}
		if !sleepCtx(ctx, time.Second<<attempt) {
			return ctx.Err()
		}
	}
	return last
}

// The same range with 429 waited out before it: quiet.
func RateLimitFirst(ctx context.Context, url string) error {
	for attempt := 0; attempt < 4; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			if !sleepCtx(ctx, time.Second<<attempt) {
				return ctx.Err()
			}
			continue
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
			if !sleepCtx(ctx, time.Second<<attempt) {
				return ctx.Err()
			}
			continue
		}
		if resp.StatusCode >= 400 && resp.StatusCode < 500 {
			return fmt.Errorf("client error %d", resp.StatusCode)
		}
		return nil
	}
	return fmt.Errorf("gave up")
}

// The range with 429 cut out of it: quiet.
func RangeBut429(ctx context.Context, url string) error {
	for attempt := 0; attempt < 4; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			if !sleepCtx(ctx, time.Second<<attempt) {
				return ctx.Err()
			}
			continue
		}
		resp.Body.Close()
		if resp.StatusCode >= 400 && resp.StatusCode < 500 && resp.StatusCode != http.StatusTooManyRequests {
			return fmt.Errorf("client error %d", resp.StatusCode)
		}
		if resp.StatusCode < 400 {
			return nil
		}
		if !sleepCtx(ctx, time.Second<<attempt) {
			return ctx.Err()
		}
	}
	return fmt.Errorf("gave up")
}

// A range given up on where no 5xx is retried (only the send is): a
// decision about something else, quiet.
func SendOnly(ctx context.Context, url string) error {
	for attempt := 0; attempt < 4; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			if !sleepCtx(ctx, time.Second<<attempt) {
				return ctx.Err()
			}
			continue
		}
		resp.Body.Close()
		if resp.StatusCode >= 400 {
			return fmt.Errorf("status %d", resp.StatusCode)
		}
		return nil
	}
	return fmt.Errorf("gave up")
}
