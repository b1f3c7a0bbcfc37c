// Package remote is the pipeline: a deadline-aware retry around a call
// marked as a pipeline (no net/http, so that the module loads fast).
package remote

import (
	"context"
	"errors"
	"time"
)

// reserve covers a slow call after the wait.
const reserve = 20 * time.Second

// Fetch gets url, retrying while the deadline leaves room.
//
//retryvet:pipeline
//retryvet:p99 10s
func Fetch(ctx context.Context, url string) error {
	err := get(ctx, url)
	for i := 0; i < 3 && err != nil; i++ {
		wait := 3 * time.Second
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait+reserve {
			return err
		}
		time.Sleep(wait)
		err = get(ctx, url)
	}
	return err
}

// get stands for one request.
func get(ctx context.Context, url string) error {
	if url == "" {
		return errEmpty
	}
	return ctx.Err()
}

var errEmpty = errors.New("empty url")
