// Package shapes holds the plain classifiers a status provenance must
// find wherever they are written (inline in a loop, in a helper over a
// typed error's Code, in a set), each beside a quiet lookalike that tests
// the same codes to decide no retry.
package shapes

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"time"
)

// 1. An enumerated 5xx classifier inline in a loop: 500 and 503 retried,
// 502 and 504 given up on.
func fetch(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	for i := 0; i < 4; i++ {
		resp, err := c.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode == 500 || resp.StatusCode == 503 { // want `retry decision lists 5xx codes 500, 503: 502 and 504 are not retried; use resp.StatusCode >= 500`
			resp.Body.Close()
			time.Sleep(time.Second)
			continue
		}
		return resp, nil
	}
	return nil, errors.New("out of attempts")
}

// Lookalikes of 1: a handler that writes 500 and 503, a metrics switch on
// the status, a log of the code.
func handle(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("down") != "" {
		w.WriteHeader(503)
		return
	}
	if r.ContentLength > 1<<20 {
		w.WriteHeader(500)
		return
	}
	w.WriteHeader(200)
}

var serverErrors, gatewayErrors int

func count(resp *http.Response) {
	switch resp.StatusCode {
	case 500, 503:
		serverErrors++
	case 502, 504:
		gatewayErrors++
	}
}

func logStatus(resp *http.Response) {
	if resp.StatusCode == 500 || resp.StatusCode == 503 {
		log.Printf("upstream failed: %d", resp.StatusCode)
	}
}

// 2. The project's own error type carries the status its client set from
// the response; a classifier takes it with errors.As and enumerates 5xx.
type APIError struct {
	Code    int
	Message string
}

func (e *APIError) Error() string { return fmt.Sprintf("api: %d %s", e.Code, e.Message) }

func call(ctx context.Context, c *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return &APIError{Code: resp.StatusCode, Message: resp.Status}
	}
	return nil
}

func retryable(err error) bool {
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		return false
	}
	switch apiErr.Code {
	case 500, 502, 503: // want `retry decision lists 5xx codes 500, 502, 503: 504 is not retried; use apiErr.Code >= 500`
		return true
	}
	return false
}

func send(ctx context.Context, c *http.Client, url string) error {
	var err error
	for i := 0; i < 5; i++ {
		if err = call(ctx, c, url); err == nil || !retryable(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(i+1) * time.Second):
		}
	}
	return err
}

// Lookalike of 2: the same switch maps codes to what the user is told;
// no retry uses it.
func userMessage(err error) string {
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		return "unknown error"
	}
	switch apiErr.Code {
	case 500, 502, 503:
		return "the service is having trouble; try again later"
	}
	return apiErr.Message
}

// 3. A retryable set that holds permanent codes.
var retryOn = map[int]bool{400: true, 413: true, 429: true, 500: true, 502: true, 503: true, 504: true}

func upload(ctx context.Context, c *http.Client, req *http.Request) (*http.Response, error) {
	for i := 0; ; i++ {
		resp, err := c.Do(req.WithContext(ctx))
		if err != nil { // want `gives up on the first error of the send itself`
			return nil, err
		}
		if !retryOn[resp.StatusCode] || i == 3 { // want `retry decision retries 400 \(bad request\), 413 \(payload too large\): the same request fails the same way on each of 4 attempts; give up on them \(413: shrink the input instead\)`
			return resp, nil
		}
		resp.Body.Close()
		time.Sleep(time.Duration(i+1) * time.Second)
	}
}

// Lookalike of 3: a set of codes that are counted, not retried.
var counted = map[int]bool{400: true, 413: true, 500: true}

var clientErrors int

func tally(resp *http.Response) {
	if counted[resp.StatusCode] {
		clientErrors++
	}
}

// 7. The status comes back from a wrapper as its first result, next to the
// error: code, err := get(...). The loop retries two 5xx codes by name.
func get(ctx context.Context, c *http.Client, url string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

func pushCode(ctx context.Context, c *http.Client, url string) error {
	for i := 0; i < 3; i++ {
		code, err := get(ctx, c, url)
		if err != nil {
			return err
		}
		switch code {
		case 502, 503: // want `retry decision lists 5xx codes 502, 503: 500, 504 and 529 \(overloaded\) are not retried; use code >= 500`
			time.Sleep(time.Second)
			continue
		}
		return nil
	}
	return errors.New("out of attempts")
}

// Lookalike of 7: the wrapper's integer is a count of rows, not a status,
// so the loop that waits on 502 or 503 rows is no classifier.
func rows(ctx context.Context, c *http.Client, url string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return int(resp.ContentLength / 64), nil
}

func pushRows(ctx context.Context, c *http.Client, url string) error {
	for i := 0; i < 3; i++ {
		n, err := rows(ctx, c, url)
		if err != nil {
			return err
		}
		switch n {
		case 502, 503:
			time.Sleep(time.Second)
			continue
		}
		return nil
	}
	return errors.New("out of attempts")
}
