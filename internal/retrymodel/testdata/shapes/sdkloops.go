package shapes

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"time"
)

// okToRetry answers on the response alone: no response is a transport
// failure, x-should-retry is the server's yes/no directive (absent on a
// plain success), then the status.
func okToRetry(res *http.Response) bool {
	if res == nil {
		return true
	}
	if res.Header.Get("x-should-retry") == "true" {
		return true
	}
	if res.Header.Get("x-should-retry") == "false" {
		return false
	}
	return res.StatusCode == http.StatusTooManyRequests || res.StatusCode >= http.StatusInternalServerError
}

// The generated SDKs' request loop: the exit test folds the classifier
// with the attempt bound.
func sdkExecute(ctx context.Context, c *http.Client, req *http.Request, max int) (*http.Response, error) {
	var res *http.Response
	var err error
	for n := 0; n <= max; n++ { // want `retry loop: `
		res, err = c.Do(req.Clone(ctx))
		if !okToRetry(res) || n >= max {
			break
		}
		time.Sleep(time.Second << n)
	}
	return res, err
}

// jobRunning compares a header with a state, not a yes/no directive: what
// it answers on success is not known, so this loop is not a retry.
func jobRunning(res *http.Response, err error) bool {
	if err != nil {
		return true
	}
	return res.Header.Get("x-job-state") == "running"
}

func jobPoll(ctx context.Context, c *http.Client, req *http.Request) (*http.Response, error) {
	for {
		res, err := c.Do(req.Clone(ctx))
		if !jobRunning(res, err) {
			return res, err
		}
		time.Sleep(2 * time.Second)
	}
}

// apiErr is an API's error decoded from the body.
type apiErr struct{ msg string }

func (e *apiErr) Error() string { return e.msg }

func toErr(res *http.Response, body []byte) error { return &apiErr{msg: string(body)} }

func retryAny(err error, n int) bool { return err != nil && n < 3 }

// The body is read and decoded into an error in the same turn: that reads
// this attempt's result and is no pagination.
func readInTurn(c *http.Client, req *http.Request) error {
	var res *http.Response
	var body []byte
	var err error
	for n := 0; ; n++ { // want `retry loop: `
		res, err = c.Do(req)
		if err == nil {
			body, err = io.ReadAll(res.Body)
			res.Body.Close()
		}
		if err == nil && res.StatusCode >= 400 {
			err = toErr(res, body)
		}
		if !retryAny(err, n) {
			break
		}
		time.Sleep(time.Second)
	}
	return err
}

// A stream reader that retries a failed read after a sleep in the default
// clause of a select that only polls ctx.
func readRetry(ctx context.Context, sc *bufio.Scanner) (string, error) {
	for { // want `retry loop: `
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		default:
			if !sc.Scan() {
				if err := sc.Err(); err != nil {
					time.Sleep(time.Second)
					continue
				}
				return "", io.EOF
			}
			return sc.Text(), nil
		}
	}
}
