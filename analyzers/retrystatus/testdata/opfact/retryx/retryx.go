// Package retryx is a project's retry helper: the caller hands it the
// operation and the classifier.
package retryx

import (
	"context"
	"errors"
	"time"

	"example.com/t/opfact/api"
)

// Do runs op up to attempts times while retriable says so.
func Do(ctx context.Context, attempts int, op func() error, retriable func(error) bool) error {
	var err error
	for i := 0; i < attempts; i++ {
		if err = op(); err == nil || !retriable(err) {
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

// IsRetriable retries 429 and 5xx.
func IsRetriable(err error) bool { // want IsRetriable:`^status classifier: true for 429,500,`
	var se *api.StatusError
	return errors.As(err, &se) && (se.Status == 429 || se.Status >= 500)
}
