// Package quiet makes remote calls that nobody retries: a readiness wait
// (the same request until the service answers), pagination and a single
// call with a deadline. None is a pipeline.
package quiet

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// WaitReady polls until the service is up.
func WaitReady(ctx context.Context, url string) error {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/healthz", nil)
		if err != nil {
			return err
		}
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

type page struct {
	Items []string `json:"items"`
	Next  string   `json:"next"`
}

// All pages through a listing.
func All(ctx context.Context, url string) ([]string, error) {
	var out []string
	for next := url; next != ""; {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, next, nil)
		if err != nil {
			return nil, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		var p page
		err = json.NewDecoder(resp.Body).Decode(&p)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, p.Items...)
		next = p.Next
	}
	return out, nil
}

// Once calls once within 10s.
func Once(url string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}
