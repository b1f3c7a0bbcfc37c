// Package ranges: status tests written as ranges. `code < 400` as the
// success test retries every 4xx on its other side, and `code >= 400`
// that waits and goes round is a retry of 4xx and 5xx, not a poll; a
// loop that waits while the answer is 404 (not there yet) is a poll.
package ranges

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"
)

func pause(ctx context.Context, i int) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(rand.N(time.Second << i)):
		return nil
	}
}

// Below400 leaves on any status under 400 and retries the rest.
func Below400(ctx context.Context, hc *http.Client, url string) error {
	for i := 0; i < 4; i++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err != nil {
			if werr := pause(ctx, i); werr != nil {
				return werr
			}
			continue
		}
		resp.Body.Close()
		if resp.StatusCode < 400 { // want `retry decision retries 400 \(bad request\), 401 \(unauthorized\), 403 \(forbidden\), 404 \(not found\), 413 \(payload too large\), 422 \(unprocessable\): the same request fails the same way on each of 4 attempts`
			return nil
		}
		if werr := pause(ctx, i); werr != nil {
			return werr
		}
	}
	return errors.New("failed")
}

// From400 waits and goes round on every status from 400 up.
func From400(ctx context.Context, hc *http.Client, url string) error {
	for i := 0; i < 4; i++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err != nil {
			if werr := pause(ctx, i); werr != nil {
				return werr
			}
			continue
		}
		resp.Body.Close()
		if resp.StatusCode >= 400 { // want `retry decision retries 400 \(bad request\), 401 \(unauthorized\)`
			if werr := pause(ctx, i); werr != nil {
				return werr
			}
			continue
		}
		return nil
	}
	return errors.New("failed")
}

// Quiet: waiting for a resource to appear (404 until it exists) is a poll.
func WaitCreated(ctx context.Context, hc *http.Client, url string) (map[string]any, error) {
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := hc.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode == http.StatusNotFound {
			resp.Body.Close()
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(2 * time.Second):
			}
			continue
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("status %d", resp.StatusCode)
		}
		var out map[string]any
		return out, json.NewDecoder(resp.Body).Decode(&out)
	}
}
