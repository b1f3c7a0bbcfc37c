// Package gateway: retries of 429 and 503 that give up on 502 and 504,
// the answers of a proxy or load balancer for the same restart.
package gateway

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"
)

func wait(ctx context.Context) error {
	t := time.NewTimer(rand.N(time.Second))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func get(ctx context.Context, hc *http.Client, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	if err != nil {
		return nil, err
	}
	return hc.Do(req)
}

// The decision as a switch: 429 and 503 fall out to the wait.
func exportSwitch(ctx context.Context, hc *http.Client, url string) error {
	for i := 0; i < 5; i++ {
		resp, err := get(ctx, hc, url)
		if err != nil {
			return err
		}
		resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusOK:
			return nil
		case http.StatusTooManyRequests, http.StatusServiceUnavailable: // want `retry decision retries 429 and 503 but not 502 or 504: .* fails at once with 4 attempts left; retry 502 and 504 too \(or resp.StatusCode >= 500\)`
		default:
			return fmt.Errorf("export: %s", resp.Status)
		}
		if err := wait(ctx); err != nil {
			return err
		}
	}
	return errors.New("export: attempts exhausted")
}

// The same decision with ifs, on a code copied out of the response.
func exportIf(ctx context.Context, hc *http.Client, url string) error {
	for i := 0; i < 3; i++ {
		resp, err := get(ctx, hc, url)
		if err != nil {
			return err
		}
		resp.Body.Close()
		code := resp.StatusCode
		if code == http.StatusOK {
			return nil
		}
		if code != http.StatusTooManyRequests && code != http.StatusServiceUnavailable { // want `retry decision retries 429 and 503 but not 502 or 504: .* with 2 attempts left; retry 502 and 504 too \(or code >= 500\)`
			return fmt.Errorf("export: %d", code)
		}
		if err := wait(ctx); err != nil {
			return err
		}
	}
	return errors.New("export: attempts exhausted")
}

// Quiet: the gateway codes are in the list.
func exportAll(ctx context.Context, hc *http.Client, url string) error {
	for i := 0; i < 5; i++ {
		resp, err := get(ctx, hc, url)
		if err != nil {
			return err
		}
		resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusOK:
			return nil
		case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		default:
			return fmt.Errorf("export: %s", resp.Status)
		}
		if err := wait(ctx); err != nil {
			return err
		}
	}
	return errors.New("export: attempts exhausted")
}

// Quiet: 503 alone ("come back later") is a choice, not a list of
// transient answers.
func unavailableOnly(ctx context.Context, hc *http.Client, url string) error {
	for i := 0; i < 5; i++ {
		resp, err := get(ctx, hc, url)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable {
			if err := wait(ctx); err != nil {
				return err
			}
			continue
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("export: %s", resp.Status)
		}
		return nil
	}
	return errors.New("export: attempts exhausted")
}

// Quiet: a handler that answers 429 and 503 itself retries nothing.
func handler(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Header.Get("X-Quota") == "0":
		w.WriteHeader(http.StatusTooManyRequests)
	case r.Header.Get("X-Drain") != "":
		w.WriteHeader(http.StatusServiceUnavailable)
	default:
		w.WriteHeader(http.StatusOK)
	}
}
