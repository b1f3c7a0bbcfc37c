// Package example holds retries that test one 5xx code: a choice, not an
// enumeration of a range (quiet), beside two codes that are one.
package example

import (
	"errors"
	"net/http"
	"time"
)

// Unavailable retries 503 alone ("come back later"): one code is no
// enumeration of 5xx. Quiet.
func Unavailable(c *http.Client, url string) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ {
		resp, err := c.Get(url)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode == http.StatusServiceUnavailable {
			resp.Body.Close()
			time.Sleep(time.Second)
			continue
		}
		return resp, nil
	}
	return nil, errors.New("out of attempts")
}

// Gateways lists two 5xx codes: an enumeration that misses 500 and 529.
func Gateways(c *http.Client, url string) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ {
		resp, err := c.Get(url)
		if err != nil { // want `gives up on the first error of the send itself`
			return nil, err
		}
		if resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusBadGateway { // want `retry decision lists 5xx codes 502, 503: 500, 504 and 529 \(overloaded\) are not retried`
			resp.Body.Close()
			time.Sleep(time.Second)
			continue
		}
		return resp, nil
	}
	return nil, errors.New("out of attempts")
}
