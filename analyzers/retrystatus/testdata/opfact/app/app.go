// Package app retries the calls of package api.
package app

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"time"

	"example.com/t/opfact/api"
	"example.com/t/opfact/retryx"
	"github.com/cenkalti/backoff/v4"
)

// pause waits d or until ctx is done.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Load retries whatever Fetch returns: its error stands for every status
// from 300 up, so a 400 or 401 is sent again. Reported.
func Load(ctx context.Context, c *api.Client) ([]byte, error) {
	var err error
	for attempt := 0; attempt < 5; attempt++ { // want `retry without a classifier: retry loop retries every status of api.\(\*Client\).Fetch but success, so 400, 401, 403 and 413 .* on each of 5 attempts`
		var b []byte
		if b, err = c.Fetch(ctx, "/config"); err == nil {
			return b, nil
		}
		log.Printf("load: %v", err)
		if werr := pause(ctx, time.Duration(attempt+1)*time.Second); werr != nil {
			return nil, werr
		}
	}
	return nil, err
}

// LoadSelect is Load with the wait written inline: the select's cancel
// case gives up on a cancel, not on a status. Reported.
func LoadSelect(ctx context.Context, c *api.Client) ([]byte, error) {
	var err error
	for attempt := 0; attempt < 5; attempt++ { // want `retry without a classifier: retry loop retries every status of api.\(\*Client\).Fetch but success`
		var b []byte
		if b, err = c.Fetch(ctx, "/config"); err == nil {
			return b, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(attempt+1) * time.Second):
		}
	}
	return nil, err
}

// Status tests the answer's code for success only, and waits with the
// context tested first. Reported.
func Status(ctx context.Context, c *api.Client) ([]byte, error) {
	for attempt := 0; attempt < 4; attempt++ { // want `retry without a classifier: retry loop retries every status of api.\(\*Client\).Raw but success, so 400, 401, 403 and 413 .* on each of 4 attempts`
		a, err := c.Raw(ctx, "/status")
		if err == nil && a.Code == 200 {
			return a.Body, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		time.Sleep(time.Duration(attempt+1) * time.Second)
	}
	return nil, errors.New("status: gave up")
}

// LoadTyped reads the status inside the error: quiet.
func LoadTyped(ctx context.Context, c *api.Client) ([]byte, error) {
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		var b []byte
		if b, err = c.Fetch(ctx, "/config"); err == nil {
			return b, nil
		}
		var se *api.StatusError
		if errors.As(err, &se) && se.Status < 500 && se.Status != 429 {
			return nil, err
		}
		if werr := pause(ctx, time.Duration(attempt+1)*time.Second); werr != nil {
			return nil, werr
		}
	}
	return nil, err
}

// LoadFound retries Find, which names 404 itself: quiet.
func LoadFound(ctx context.Context, c *api.Client) ([]byte, error) {
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		var b []byte
		if b, err = c.Find(ctx, "/config"); err == nil {
			return b, nil
		}
		if werr := pause(ctx, time.Duration(attempt+1)*time.Second); werr != nil {
			return nil, werr
		}
	}
	return nil, err
}

// StatusClassified gives up on the client errors the answer carries: quiet.
func StatusClassified(ctx context.Context, c *api.Client) ([]byte, error) {
	for attempt := 0; attempt < 4; attempt++ {
		a, err := c.Raw(ctx, "/status")
		if err == nil && a.Code == 200 {
			return a.Body, nil
		}
		if err == nil && a.Code >= 400 && a.Code < 500 && a.Code != 429 {
			return nil, errors.New("status: rejected")
		}
		if werr := pause(ctx, time.Duration(attempt+1)*time.Second); werr != nil {
			return nil, werr
		}
	}
	return nil, errors.New("status: gave up")
}

// All walks the pages: the loop repeats on success, no retry: quiet.
func All(ctx context.Context, c *api.Client) ([]string, error) { // want All:`^error for every failing status of api.\(\*Client\).Fetch$`
	var out []string
	cursor := ""
	for {
		items, next, err := c.Page(ctx, cursor)
		if err != nil {
			return nil, err
		}
		out = append(out, items...)
		if next == "" {
			return out, nil
		}
		cursor = next
	}
}

// WaitReady waits for the service to answer, as long as ctx allows: a
// readiness wait, not a retry of a request. Quiet.
func WaitReady(ctx context.Context, c *api.Client) error {
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := c.Fetch(ctx, "/healthz"); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// Ping sends the request itself and tests the status for success only;
// its select gives up on a cancel, which decides nothing about a status.
// Reported.
func Ping(ctx context.Context, hc *http.Client, url string) error {
	for attempt := 0; attempt < 3; attempt++ { // want `retry without a classifier: retry loop retries every status of http.Client.Do but success, so 400, 401, 403 and 413 .* on each of 3 attempts`
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(attempt+1) * time.Second):
		}
	}
	return errors.New("ping: gave up")
}

// PingSome gives up on 401 and 403 and retries the other permanent
// codes; its select's cancel case does not hide that. Reported.
func PingSome(ctx context.Context, hc *http.Client, url string) error {
	for attempt := 0; attempt < 3; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden { // want `retry decision gives up on 401 \(unauthorized\), 403 \(forbidden\) but retries 400 \(bad request\), 404 \(not found\), 413 \(payload too large\), 422 \(unprocessable\): the same request fails the same way on each of 3 attempts`
				return errors.New("ping: not allowed")
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(attempt+1) * time.Second):
		}
	}
	return errors.New("ping: gave up")
}

// PingClassified gives up on every 4xx but 429 first: quiet.
func PingClassified(ctx context.Context, hc *http.Client, url string) error {
	for attempt := 0; attempt < 3; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			if resp.StatusCode >= 400 && resp.StatusCode < 500 && resp.StatusCode != http.StatusTooManyRequests {
				return errors.New("ping: rejected")
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(attempt+1) * time.Second):
		}
	}
	return errors.New("ping: gave up")
}

// report hands on Fetch's error, wrapped.
func report(ctx context.Context, c *api.Client, id string) error {
	if _, err := c.Fetch(ctx, "/report/"+id); err != nil {
		return fmt.Errorf("report %s: %w", id, err)
	}
	return nil
}

// reportDropped logs Fetch's error and returns its own.
func reportDropped(ctx context.Context, c *api.Client, id string) error {
	if _, err := c.Fetch(ctx, "/report/"+id); err != nil {
		log.Printf("report %s: %v", id, err)
		return errors.New("report failed")
	}
	return nil
}

// Report retries a helper that hands on Fetch's error: every status is
// retried. Reported.
func Report(ctx context.Context, c *api.Client, id string) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ { // want `retry without a classifier: retry loop retries every status of api.\(\*Client\).Fetch but success`
		if err = report(ctx, c, id); err == nil {
			return nil
		}
		time.Sleep(time.Duration(attempt+1) * 2 * time.Second)
	}
	return err
}

// ReportDropped retries a helper whose error is its own, not Fetch's: the
// summary does not pass through it. Quiet.
func ReportDropped(ctx context.Context, c *api.Client, id string) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if err = reportDropped(ctx, c, id); err == nil {
			return nil
		}
		time.Sleep(time.Duration(attempt+1) * 2 * time.Second)
	}
	return err
}

// Pages retries Page, which hands on Fetch's error. Reported.
func Pages(ctx context.Context, c *api.Client) ([]string, error) {
	var err error
	for attempt := 0; attempt < 3; attempt++ { // want `retry without a classifier: retry loop retries every status of api.\(\*Client\).Fetch but success`
		var items []string
		if items, _, err = c.Page(ctx, ""); err == nil {
			return items, nil
		}
		time.Sleep(time.Duration(attempt+1) * 2 * time.Second)
	}
	return nil, err
}

// Register announces this worker until the server takes it, as long as
// ctx lives: no bound at all, a wait for the service, not a request's
// retry. Quiet.
func Register(ctx context.Context, c *api.Client) {
	for {
		if _, err := c.Fetch(ctx, "/register"); err == nil {
			return
		}
		if werr := pause(ctx, 5*time.Second); werr != nil {
			return
		}
	}
}

// Put retries Update, whose predicate calls only 2xx a success. Reported.
func Put(ctx context.Context, c *api.Client) (string, error) {
	var err error
	for attempt := 0; attempt < 3; attempt++ { // want `retry without a classifier: retry loop retries every status of api.\(\*Client\).Update but success`
		var tag string
		if tag, err = c.Update(ctx, "/doc"); err == nil {
			return tag, nil
		}
		time.Sleep(time.Duration(attempt+1) * 2 * time.Second)
	}
	return "", err
}

// Post tests the class of the status for success only. Reported.
func Post(ctx context.Context, hc *http.Client, url string) error {
	for attempt := 0; attempt < 3; attempt++ { // want `retry without a classifier: retry loop retries every status of http.Client.Do but success`
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode/100 == 2 {
				return nil
			}
		}
		time.Sleep(time.Duration(attempt+1) * 2 * time.Second)
	}
	return errors.New("post: gave up")
}

// PostClass gives up on the 4xx class, 429 with it: the class names the
// range as code >= 400 && code < 500 does. Reported.
func PostClass(ctx context.Context, hc *http.Client, url string) error {
	for attempt := 0; attempt < 3; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode/100 == 2 {
				return nil
			}
			if resp.StatusCode/100 == 4 { // want `retry decision gives up on a range of codes, 429 \(too many requests\) among them, but retries 500, 502, 503, 504`
				return errors.New("post: rejected")
			}
		}
		time.Sleep(time.Duration(attempt+1) * 2 * time.Second)
	}
	return errors.New("post: gave up")
}

// PostClassified gives up on the 4xx class but 429: quiet.
func PostClassified(ctx context.Context, hc *http.Client, url string) error {
	for attempt := 0; attempt < 3; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode/100 == 2 {
				return nil
			}
			if resp.StatusCode/100 == 4 && resp.StatusCode != http.StatusTooManyRequests {
				return errors.New("post: rejected")
			}
		}
		time.Sleep(time.Duration(attempt+1) * 2 * time.Second)
	}
	return errors.New("post: gave up")
}

// WaitDone polls the job's state with backoff.Retry: "not done yet" is an
// error of its own making, and Fetch's errors ride along. Quiet.
func WaitDone(ctx context.Context, c *api.Client) error {
	return backoff.Retry(func() error {
		b, err := c.Fetch(ctx, "/job")
		if err != nil {
			return fmt.Errorf("job status: %w", err)
		}
		if string(b) != "done" {
			return errors.New("job not done yet")
		}
		return nil
	}, backoff.WithContext(backoff.WithMaxRetries(backoff.NewConstantBackOff(time.Second), 30), ctx))
}

// LoadBackoff retries Fetch with backoff.Retry, its error as it is.
// Reported.
func LoadBackoff(ctx context.Context, c *api.Client) ([]byte, error) {
	var out []byte
	err := backoff.Retry(func() error { // want `retry without a classifier: backoff.Retry retries every status of api.\(\*Client\).Fetch but success`
		b, err := c.Fetch(ctx, "/config")
		if err != nil {
			return fmt.Errorf("config: %w", err)
		}
		out = b
		return nil
	}, backoff.WithContext(backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 4), ctx))
	return out, err
}

// retrying runs op with a classifier of its own: an error it does not
// judge transient ends the retry.
func retrying(ctx context.Context, op func() error) error {
	return backoff.Retry(func() error {
		err := op()
		if err != nil && !transient(err) {
			return backoff.Permanent(err)
		}
		return err
	}, backoff.WithContext(backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 4), ctx))
}

func transient(err error) bool {
	var se *api.StatusError
	return errors.As(err, &se) && (se.Status == 429 || se.Status >= 500)
}

// LoadVia hands Fetch to a helper that classifies inside: quiet.
func LoadVia(ctx context.Context, c *api.Client) error {
	return retrying(ctx, func() error {
		_, err := c.Fetch(ctx, "/config")
		return err
	})
}

// apiDo hands retryx.Do the operation and a classifier of its own.
func apiDo(ctx context.Context, op func() error) error {
	return retryx.Do(ctx, 4, op, retryx.IsRetriable)
}

// LoadX goes through apiDo, whose classifier is inside: quiet.
func LoadX(ctx context.Context, c *api.Client) error {
	return apiDo(ctx, func() error {
		_, err := c.Fetch(ctx, "/config")
		return err
	})
}

// PushStatus tests the status inside the retried closure and answers a
// bad one with an error of its own making: a retried failure, not a poll.
// Reported.
func PushStatus(ctx context.Context, hc *http.Client, url string) error {
	return backoff.Retry(func() error { // want `retry without a classifier: backoff.Retry retries every status of http.Client.Do but success`
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("push: status %d", resp.StatusCode)
		}
		return nil
	}, backoff.WithContext(backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 4), ctx))
}
