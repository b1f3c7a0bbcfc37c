// Package devicepoll holds OAuth device-code polls, where 403 and 404 mean
// "not approved yet" and the loop asks again at the server's interval
// (quiet), beside a request retried on the same codes after it failed.
package devicepoll

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"
)

type token struct {
	AccessToken string `json:"access_token"`
}

func tokenRequest(ctx context.Context, endpoint, code string) (*http.Request, error) {
	form := url.Values{"device_code": {code}, "grant_type": {"urn:ietf:params:oauth:grant-type:device_code"}}
	return http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
}

// PollToken waits the interval, then asks: 403/404 is "pending". Quiet.
func PollToken(ctx context.Context, endpoint, code string, interval time.Duration) (*token, error) {
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(interval):
		}
		req, err := tokenRequest(ctx, endpoint, code)
		if err != nil {
			return nil, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusNotFound {
			resp.Body.Close()
			continue
		}
		var t token
		err = json.NewDecoder(resp.Body).Decode(&t)
		resp.Body.Close()
		return &t, err
	}
}

// PollTicker is the same poll driven by a ticker, bounded by expires_in.
// Quiet.
func PollTicker(ctx context.Context, endpoint, code string, expiresIn time.Duration) (*token, error) {
	ctx, cancel := context.WithTimeout(ctx, expiresIn)
	defer cancel()
	tick := time.NewTicker(5 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
			req, err := tokenRequest(ctx, endpoint, code)
			if err != nil {
				return nil, err
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return nil, err
			}
			if resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusNotFound {
				resp.Body.Close()
				continue
			}
			var t token
			err = json.NewDecoder(resp.Body).Decode(&t)
			resp.Body.Close()
			return &t, err
		}
	}
}

// FetchProfile asks first and retries a 403 or 404 with a growing backoff:
// the same request fails the same way each time.
func FetchProfile(ctx context.Context, u string) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusNotFound { // want `retry decision retries 403 \(forbidden\), 404 \(not found\)`
			resp.Body.Close()
			time.Sleep(time.Second << attempt)
			continue
		}
		return resp, nil
	}
	return nil, errors.New("out of attempts")
}

// PollAskFirst asks first and waits the server's interval after each
// "not approved yet" (403, 404); a transport error gives up. Quiet: the
// answers are states, and the interval does not grow.
func PollAskFirst(ctx context.Context, endpoint, code string, interval time.Duration) (*token, error) {
	deadline := time.Now().Add(15 * time.Minute)
	for time.Now().Before(deadline) {
		req, err := tokenRequest(ctx, endpoint, code)
		if err != nil {
			return nil, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusForbidden {
			resp.Body.Close()
			time.Sleep(interval)
			continue
		}
		var t token
		err = json.NewDecoder(resp.Body).Decode(&t)
		resp.Body.Close()
		return &t, err
	}
	return nil, errors.New("login expired")
}
