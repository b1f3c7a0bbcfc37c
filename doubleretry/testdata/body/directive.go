package body

import (
	"context"
	"net/http"
	"strings"
	"time"
)

// Charge goes round when the server answers Stripe-Should-Retry: true,
// sending the request whose body the first attempt read.
func Charge(ctx context.Context, hc *http.Client, url, form string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(form))
	if err != nil {
		return nil, err
	}
	tries := 0
again:
	resp, err := hc.Do(req) // want `the POST request built at body/directive.go:13 is sent again by the retry loop \(goto\) at body/directive.go:18 with the body the first attempt read to its end`
	if err != nil {
		return nil, err
	}
	if resp.Header.Get("Stripe-Should-Retry") == "true" && tries < 3 {
		resp.Body.Close()
		tries++
		if werr := pause(ctx, tries); werr != nil {
			return nil, werr
		}
		goto again
	}
	return resp, nil
}

// Export waits for a report the server marks complete with a yes/no
// header: a poll of a GET with no body, and no retry directive: quiet.
func Export(ctx context.Context, hc *http.Client, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
poll:
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.Header.Get("X-Report-Complete") != "true" {
		resp.Body.Close()
		time.Sleep(time.Second)
		goto poll
	}
	return resp, nil
}

// Submit polls a yes/no header that is no retry directive, re-sending a
// POST: not read as a retry of a failure, so quiet.
func Submit(ctx context.Context, hc *http.Client, url, doc string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(doc))
	if err != nil {
		return nil, err
	}
again:
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.Header.Get("X-Accepted") == "false" {
		resp.Body.Close()
		if werr := pause(ctx, 1); werr != nil {
			return nil, werr
		}
		goto again
	}
	return resp, nil
}
