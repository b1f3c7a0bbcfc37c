// Package census: a deadline set on the path to a pipeline is shorter than
// the retry policy needs (deadlinecensus).
package census

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// call asks the model host once.
//
//retryvet:p99 40s
func call(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://llm.example/v1/complete", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}

// Complete retries a refused call twice, waiting 7s and then 11s.
func Complete(ctx context.Context) error {
	waits := []time.Duration{7 * time.Second, 11 * time.Second}
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if err = call(ctx); err == nil {
			return nil
		}
		if attempt == len(waits) {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(waits[attempt]):
		}
	}
	return err
}

// Handle gives the pipeline 5s: the first wait alone is 7s.
func Handle() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return Complete(ctx)
}
