// Package retriedtype holds retries whose classifier retries one error
// type of the package, and whose operation chooses what is retried by
// returning that type for some statuses: the statuses retried are those
// branches. Through a retrying function a factory of another package made
// and a struct field holds, and through a helper handed the classifier.
// Beside them, operations that mark every transient status stay quiet.
package retriedtype

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"

	"example.com/t/retriedtype/retrier"
)

// again marks a failure worth another attempt.
type again struct{ after time.Duration }

func (a *again) Error() string { return "temporary failure" }

func temporary(after time.Duration) error { return &again{after: after} }

// shouldRetry retries *again and nothing else.
func shouldRetry(err error) (bool, time.Duration) {
	a, ok := err.(*again)
	if !ok {
		return false, 0
	}
	return true, a.after
}

type Exporter struct {
	hc   *http.Client
	url  string
	send retrier.Do
}

func NewExporter(p retrier.Policy, url string) *Exporter {
	return &Exporter{hc: &http.Client{}, url: url, send: p.New(shouldRetry)}
}

// Export marks 429 and 503 retryable and gives up on everything else,
// 502 and 504 among them.
func (e *Exporter) Export(ctx context.Context) error {
	return e.send(ctx, func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, nil)
		if err != nil {
			return err
		}
		resp, err := e.hc.Do(req)
		if err != nil { // want `retry helper retrier.Policy.New retries 429, 503 but gives up on the first error of the send itself`
			return err
		}
		defer resp.Body.Close()
		switch code := resp.StatusCode; {
		case code < 300:
			return nil
		case code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable: // want `retry decision retries 429 and 503 but not 502 or 504`
			return temporary(0)
		default:
			return fmt.Errorf("export: %s", resp.Status)
		}
	})
}

// Flush marks 429 and every 5xx, but a failed send is returned unmarked
// and given up on.
func (e *Exporter) Flush(ctx context.Context) error {
	return e.send(ctx, func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url+"/flush", nil)
		if err != nil {
			return err
		}
		resp, err := e.hc.Do(req)
		if err != nil { // want `retry helper retrier.Policy.New retries 429, 500, 502, 503, 504 but gives up on the first error of the send itself`
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
			return temporary(0)
		}
		if resp.StatusCode >= 300 {
			return fmt.Errorf("flush: %s", resp.Status)
		}
		return nil
	})
}

// withRetries is handed its classifier.
func withRetries(ctx context.Context, classify func(error) (bool, time.Duration), op func() error) error {
	var err error
	for i := 0; i < 4; i++ {
		if err = op(); err == nil {
			return nil
		}
		ok, hint := classify(err)
		if !ok {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(max(hint, time.Duration(rand.Int64N(int64(time.Second<<i))))):
		}
	}
	return err
}

// Upload marks two 5xx codes: 502 and 504 fall through and fail at once.
func (e *Exporter) Upload(ctx context.Context, req *http.Request) error {
	return withRetries(ctx, shouldRetry, func() error {
		resp, err := e.hc.Do(req.WithContext(ctx))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusOK:
			return nil
		case 500, 503: // want `retry decision lists 5xx codes 500, 503: 502 and 504 are not retried`
			return temporary(0)
		}
		return fmt.Errorf("upload: %s", resp.Status)
	})
}

// Delete marks every 5xx and a failed send: quiet.
func (e *Exporter) Delete(ctx context.Context, req *http.Request) error {
	return withRetries(ctx, shouldRetry, func() error {
		resp, err := e.hc.Do(req.WithContext(ctx))
		if err != nil {
			return temporary(0)
		}
		defer resp.Body.Close()
		if resp.StatusCode >= 500 {
			return temporary(0)
		}
		return nil
	})
}
