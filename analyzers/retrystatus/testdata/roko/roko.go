// Package roko holds retries run by github.com/buildkite/roko, whose
// callback gives up by calling r.Break() before it returns the error:
// a callback that breaks only on a few 4xx retries the other permanent
// answers; one that breaks on every 4xx but 429 is quiet.
package roko

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/buildkite/roko"
)

type Response struct {
	StatusCode int
}

type API struct {
	hc *http.Client
}

// finish reports a job's end; the response is nil when nothing came back.
func (a *API) finish(ctx context.Context, id string) (*Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, "https://api.example.com/jobs/"+id+"/finish", nil)
	if err != nil {
		return nil, err
	}
	resp, err := a.hc.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		return &Response{StatusCode: resp.StatusCode}, fmt.Errorf("finish: %d", resp.StatusCode)
	}
	return &Response{StatusCode: resp.StatusCode}, nil
}

// FinishJob gives up only on 422 and 401: a 400, 403 or 404 is sent again
// twelve times. Reported.
func (a *API) FinishJob(ctx context.Context, id string) error {
	return roko.NewRetrier(
		roko.WithStrategy(roko.Constant(5*time.Second)),
		roko.WithMaxAttempts(12),
		roko.WithJitter(),
	).DoWithContext(ctx, func(r *roko.Retrier) error {
		resp, err := a.finish(ctx, id)
		if err != nil {
			if resp != nil && (resp.StatusCode == 422 || resp.StatusCode == 401) { // want `retry decision gives up on 401 \(unauthorized\), 422 \(unprocessable\) but retries 400 \(bad request\), 403 \(forbidden\), 404 \(not found\), 413 \(payload too large\): the same request fails the same way on each of 12 attempts`
				r.Break()
				return err
			}
		}
		return err
	})
}

// FinishJobClassified gives up on every 4xx but 429. Quiet.
func (a *API) FinishJobClassified(ctx context.Context, id string) error {
	r := roko.NewRetrier(
		roko.WithStrategy(roko.Constant(5*time.Second)),
		roko.WithMaxAttempts(12),
		roko.WithJitter(),
	)
	return r.DoWithContext(ctx, func(r *roko.Retrier) error {
		resp, err := a.finish(ctx, id)
		if err != nil && resp != nil && resp.StatusCode >= 400 && resp.StatusCode < 500 && resp.StatusCode != 429 {
			r.Break()
		}
		return err
	})
}

// Register through DoFunc gives up on 401 alone: one code given up on is
// a choice, not a list with holes. Quiet.
func (a *API) Register(ctx context.Context) (string, error) {
	r := roko.NewRetrier(roko.WithMaxAttempts(30), roko.WithStrategy(roko.Constant(10*time.Second)))
	return roko.DoFunc(ctx, r, func(r *roko.Retrier) (string, error) {
		resp, err := a.finish(ctx, "register")
		if err != nil {
			if resp != nil && resp.StatusCode == 401 {
				r.Break()
			}
			return "", err
		}
		return "agent", nil
	})
}
