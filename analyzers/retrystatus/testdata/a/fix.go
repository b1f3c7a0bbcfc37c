package a

import (
	"net/http"
	"time"
)

// The simple boolean forms: a chain of == (or != with &&) on one status.
// Each is rewritten to a range check.

func getOr(url string) (*http.Response, error) {
	var lastErr error
	for attempt := 0; attempt < 4; attempt++ {
		resp, err := http.Get(url)
		if err != nil {
			lastErr = err
			time.Sleep(time.Duration(attempt+1) * time.Second)
			continue
		}
		if resp.StatusCode == 502 || resp.StatusCode == 503 || resp.StatusCode == 504 { // want `retry decision lists 5xx codes 502, 503, 504: 500 and 529 \(overloaded\) are not retried; use resp.StatusCode >= 500`
			resp.Body.Close()
			time.Sleep(time.Duration(attempt+1) * time.Second)
			continue
		}
		return resp, nil
	}
	return nil, lastErr
}

func getAnd(url string) (*http.Response, error) {
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		resp, err := http.Get(url + "/v1/messages") // an API that sends 529
		if err != nil {
			lastErr = err
			time.Sleep(2 * time.Second)
			continue
		}
		if resp.StatusCode < 300 {
			return resp, nil
		}
		code := resp.StatusCode
		resp.Body.Close()
		if code != http.StatusInternalServerError && code != http.StatusServiceUnavailable { // want `retry decision lists 5xx codes 500, 503: 502, 504 and 529 \(overloaded\) are not retried; use code >= 500`
			return nil, lastErr
		}
		time.Sleep(2 * time.Second)
	}
	return nil, lastErr
}

func getWith429(url string) (*http.Response, error) {
	for attempt := 0; attempt < 3; attempt++ {
		resp, err := http.Get(url)
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		// The 5xx part is an enumeration. Every 429 is retried as it comes,
		// but this is no LLM API: its 429 is a rate limit, not a quota.
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusBadGateway || resp.StatusCode == http.StatusServiceUnavailable { // want `retry decision lists 5xx codes 502, 503: 500, 504 and 529 \(overloaded\) are not retried; use resp.StatusCode >= 500`
			resp.Body.Close()
			time.Sleep(time.Second)
			continue
		}
		return resp, nil
	}
	return nil, nil
}
