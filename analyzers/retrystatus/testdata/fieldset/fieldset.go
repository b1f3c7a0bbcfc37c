// Package fieldset holds 5xx sets kept in a struct field set by a
// constructor, or in a package variable, and consulted by a retry with a
// linear backoff, beside the same clients with a range check.
package fieldset

import (
	"context"
	"errors"
	"net/http"
	"time"
)

var errGaveUp = errors.New("gave up")

// Client keeps the statuses it retries in a field.
type Client struct {
	hc            *http.Client
	retryOnStatus map[int]bool
	maxRetries    int
	backoff       time.Duration
}

// New sets the retried statuses once.
func New() *Client {
	return &Client{
		hc:            http.DefaultClient,
		retryOnStatus: map[int]bool{502: true, 503: true, 504: true},
		maxRetries:    3,
		backoff:       time.Second,
	}
}

// Do retries the statuses of the field, waiting 1s, 2s, 3s.
func (c *Client) Do(ctx context.Context, req *http.Request) (*http.Response, error) {
	for attempt := 0; attempt <= c.maxRetries; attempt++ {
		resp, err := c.hc.Do(req.WithContext(ctx))
		if err != nil { // want `gives up on the first error of the send itself`
			return nil, err
		}
		if !c.retryOnStatus[resp.StatusCode] { // want `retry decision lists 5xx codes 502, 503, 504: 500 and 529 \(overloaded\) are not retried; use resp.StatusCode >= 500`
			return resp, nil
		}
		resp.Body.Close()
		time.Sleep(c.backoff * time.Duration(attempt+1))
	}
	return nil, errGaveUp
}

var retryStatuses = map[int]bool{http.StatusBadGateway: true, http.StatusServiceUnavailable: true}

// Fetch consults a package variable.
func Fetch(ctx context.Context, hc *http.Client, req *http.Request) (*http.Response, error) {
	for attempt := 0; attempt < 3; attempt++ {
		resp, err := hc.Do(req.WithContext(ctx))
		if err != nil { // want `gives up on the first error of the send itself`
			return nil, err
		}
		if !retryStatuses[resp.StatusCode] { // want `retry decision lists 5xx codes 502, 503: 500, 504 and 529 \(overloaded\) are not retried; use resp.StatusCode >= 500`
			return resp, nil
		}
		resp.Body.Close()
		time.Sleep(time.Second * time.Duration(attempt+1))
	}
	return nil, errGaveUp
}

// RangeClient keeps a lower bound in its field: every 5xx. Quiet.
type RangeClient struct {
	hc         *http.Client
	retryAbove int
}

// NewRange sets the bound once.
func NewRange() *RangeClient { return &RangeClient{hc: http.DefaultClient, retryAbove: 499} }

// Do retries every status above the bound.
func (c *RangeClient) Do(ctx context.Context, req *http.Request) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ {
		resp, err := c.hc.Do(req.WithContext(ctx))
		if err != nil {
			return nil, err
		}
		if resp.StatusCode <= c.retryAbove {
			return resp, nil
		}
		resp.Body.Close()
		time.Sleep(time.Second * time.Duration(attempt+1))
	}
	return nil, errGaveUp
}

// Metrics keeps statuses in a field too, to count them: no retry. Quiet.
type Metrics struct {
	alert map[int]bool
	seen  map[int]int
}

// NewMetrics sets the statuses once.
func NewMetrics() *Metrics {
	return &Metrics{alert: map[int]bool{502: true, 503: true}, seen: map[int]int{}}
}

// Observe counts a response. Its answer is read through the field (the
// fact), but no retry decides on it here.
func (m *Metrics) Observe(resp *http.Response) bool { // want Observe:`status classifier: true for 502,503; lists 502,503$`
	m.seen[resp.StatusCode]++
	return m.alert[resp.StatusCode]
}
